// Package box makes the interface values (driver.Value) that a row's
// uncached columns become, for fewer allocations than Go's own conversion
// to an interface makes, with the same dynamic types and values.
//
// Go boxes a value that does not fit in a pointer word by allocating a copy
// of it and pointing the interface at the copy: a string costs two
// allocations (its bytes, then its 16-byte header, which holds a pointer
// and so is an object the collector scans), an int64 outside 0-255, a
// non-zero float64 and a time.Time one each. Before Go 1.27 database/sql takes every column
// as such an interface, so those allocations are most of what reading a
// column of distinct values costs. This package makes the same interfaces
// with less:
//
//   - [String]: the header and the bytes in one allocation of plain bytes,
//     the header first, pointing into the same object.
//   - [Slab]: fixed-size values copied into an array of n at a time, the
//     interface pointing at the value's element; an element is written once
//     and never again, so every interface made keeps its value.
//
// Both build the interface from its two words, the type word of the value's
// type and a pointer to the value, as Go lays out an interface value (the
// runtime's eface, which reflect relies on too); nothing else depends on the
// runtime's internals.
//
// Memory: a String is one object of 16+len bytes, as long-lived as the
// string or the interface that refers to it, the same as Go's two. A Slab's
// interface keeps its whole array reachable while it is: at most
// n*sizeof(T) bytes (SlabLen), the price of a value kept by a program that
// holds the interface itself (a scan into *any); a value copied out of it
// (a scan into *int64, *time.Time) keeps nothing.
package box

import (
	"time"
	"unsafe"
)

// eface is the layout of an interface value with no methods: its dynamic
// type and a pointer to its value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// typeWord returns the type word of v's dynamic type.
func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// stringType is the type word of string.
var stringType = typeWord("")

// iface returns the interface of dynamic type typ whose value is at p, which
// must point at a value of that type that nothing writes again.
func iface(typ, p unsafe.Pointer) any {
	return *(*any)(unsafe.Pointer(&eface{typ: typ, data: p}))
}

// headerSize is the size of a string header: its pointer and its length.
const headerSize = unsafe.Sizeof("")

// String returns string(b) as an interface, with one allocation of
// 16+len(b) bytes where Go's conversion makes two, the bytes and the header
// in one object. (The header's pointer points into its own object: the
// object holds no pointer the collector must follow, so it is allocated as
// plain bytes, which the collector never scans.) The empty string costs
// nothing.
func String(b []byte) any {
	n := len(b)
	if n == 0 {
		return ""
	}
	buf := make([]byte, int(headerSize)+n)
	copy(buf[headerSize:], b)
	p := unsafe.Pointer(&buf[0])
	*(*string)(p) = unsafe.String(&buf[headerSize], n)
	return iface(stringType, p)
}

// SlabLen is the number of values a [Slab] allocates at a time.
const SlabLen = 32

// Slab boxes values of type T, SlabLen to an allocation. The zero Slab is
// ready to use. A Slab is not safe for concurrent use: each of a plan's
// conversions has its own, used by one result set at a time.
//
// T is one of the types an interface holds by pointer (not a pointer, map,
// channel or function, which an interface holds in its data word itself):
// the driver values of fixed size that are not.
type Slab[T int64 | float64 | time.Time] struct {
	free []T // elements not handed out yet
	typ  unsafe.Pointer
}

// Box returns v as an interface, as any(v) does.
func (s *Slab[T]) Box(v T) any {
	if len(s.free) == 0 {
		s.free = make([]T, SlabLen)
		if s.typ == nil {
			var zero T
			s.typ = typeWord(zero)
		}
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return iface(s.typ, unsafe.Pointer(p))
}

// Alone returns v boxed on its own when it is of a type a [Slab] boxes
// (int64, float64, time.Time), so that keeping it keeps no slab, and
// otherwise v itself.
func Alone(v any) any {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return x
	case time.Time:
		return x
	}
	return v
}
