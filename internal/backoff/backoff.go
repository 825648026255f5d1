// Package backoff is the reuse back-off: the one place that decides, per
// cached column of a result set, whether its values go through the shared
// tables. A column's [Tracker] judges its lookups and says when the column
// skips the tables; its [Ref] carries the tracker across result sets in a
// process-wide memory. The caller (pgcache's Rows) tells the
// tracker each lookup's [Outcome] and each row it skips, and nothing else
// changes a tracker. Change the rules here; ARCHITECTURE.md ("The reuse
// back-off") explains why they are what they are, and bench/README.md has
// the measurements behind them.
package backoff

import (
	"math"

	"github.com/pgcache/pgcache/cache"
)

// A missed lookup is cheap but not free: it stores the text's key in its
// slot, and connections reading all-distinct columns at once bounce the
// table's cache lines between CPUs; a column that churns the table (random
// keys over more values than it has slots) also allocates an entry per
// admission that is evicted before it pays. So each cached column watches
// its own lookups in windows:
//
//   - A window is ProbeWindow lookups, longer than the table has slots, so
//     that a column cycling through up to cache.Slots values shows its reuse
//     inside one window and never backs off.
//   - A window pays when at least 1/minShare of its lookups were reused:
//     hits and admissions while the column warms up (its first WarmWindows
//     windows; but the second must hold a hit: admissions that never turn
//     into hits are waste), hits alone after that, which must also be at
//     least churnRatio per admission. A column's first window needs only
//     some reuse.
//   - Every window but a column's first is also judged after its first
//     EarlyWindow lookups, which must show 1/minShare reuse (after the
//     warm-up, hits) for it to go on.
//   - A window that does not pay starts a skip: the column's values bypass
//     the tables for SkipFirst rows, twice as many after each further
//     failed window, up to SkipMax. Skips count rows, NULL or not, so that
//     when every cached column skips, whole rows pass in bulk (SkipRows).
//   - After a skip the column probes again for ReprobeWindow lookups; a
//     probe that pays ends the back-off and full windows resume.
//   - A window in which QuickAdmissions values were admitted right after
//     the column missed them, on the previous row, and nothing hit fails at
//     once (ObserveAdmission): values that come twice in a row and never
//     again are waste from the first, and no repeating column looks so.
//
// The price: a column that turns, mid-result-set, from all-distinct to a
// period P longer than ReprobeWindow/(churnRatio+2) stays in its back-off to
// the end of the result set (P sightings and P admissions leave too few
// lookups of a probe for churnRatio hits per admission), its values read as
// with pgcache=off.
//
// The windows and skips, in lookups and rows:
const (
	ProbeWindow   = cache.Slots + cache.Slots/4 // a column's full window
	ReprobeWindow = ProbeWindow / 8             // a probe after a skip
	EarlyWindow   = cache.Slots / 16            // the early part of a window
	SkipFirst     = 8 * ProbeWindow             // a column's first skip
	SkipMax       = 64 * ProbeWindow            // the longest skip
	minShare      = 8
)

// churnRatio is how many hits per admission a window past its warm-up
// needs for the column to stay cached. It is a variable only so that a
// benchmark can turn the rule off (SetChurnRatio) and show what it saves.
var churnRatio = 8

// SetChurnRatio sets churnRatio to n and returns its value before. Only
// benchmarks call it, never while result sets are read.
func SetChurnRatio(n int) (old int) {
	old, churnRatio = churnRatio, n
	return old
}

// WarmWindows is how many windows of a column are judged by the loose test
// (admissions count as reuse) before churnRatio applies. A column cycling
// through P values from an empty table shows P sightings, then P admissions,
// then only hits: at P = cache.Slots its first window has no hit and a few
// admissions, its second more admissions than hits, and from the third on
// it hits only. (Not every value: those that share their slot with another
// value of the cycle evict each other's sightings and are never admitted,
// so at that period about e⁻¹ = 37% of the lookups hit.)
const WarmWindows = 2

// Outcome is what one lookup did: the back-off weighs a column's hits
// against its admissions.
type Outcome uint8

const (
	Missed   Outcome = 0 // a miss (a sighting recorded) or a bypass
	Admitted Outcome = 1 // a second sighting: the entry was made and published
	Hit      Outcome = 2 // an entry was found
)

// Tracker is one column's state; it lives in the column's result set and
// needs no synchronisation. Make it with New; a Ref carries it from one
// result set to the next.
type Tracker struct {
	// left and skip first, in this order: Quiet reads them as one word
	// where it can (quiet_word.go).
	left  int32 // lookups left in the current window, or in its early part
	skip  int32 // rows still to bypass, never negative
	rest  int32 // lookups of the window after its early part, 0 once past it
	next  int32 // length of the next skip, 0 meaning SkipFirst (not backing off)
	hits  int16 // hits in the current window (at most ProbeWindow, see below)
	adms  int16 // admissions in the current window
	quick int16 // admissions in the current window of the value the previous lookup missed
	warm  int8  // windows left that the loose test judges
	ends  uint8 // windows ended so far, modulo 256 (see Ref; a result set that ends a multiple of 256 is written at the next judgement or drop)
}

// A window's counts fit Tracker's int16s: this fails to compile if
// ProbeWindow outgrows them.
var _ [math.MaxInt16 - ProbeWindow]struct{}

// New returns the state of a column that has not been read yet.
func New() Tracker { return Tracker{left: ProbeWindow, warm: WarmWindows} }

// Skipping reports whether the column is in a skip: its values bypass the
// tables, and the caller calls SkipRow (or SkipRows) instead of looking
// them up.
func (t *Tracker) Skipping() bool { return t.skip > 0 }

// SkipLeft is the number of rows left in the column's skip, 0 when it is
// not in one.
func (t *Tracker) SkipLeft() int32 { return t.skip }

// SkipRow counts one row, NULL or not, that the column's skip passed by,
// and reports whether that ended the skip. The column must be Skipping.
func (t *Tracker) SkipRow() (ended bool) {
	t.skip--
	return t.skip == 0
}

// SkipRows counts n rows (at most SkipLeft) that the skip passed by in
// bulk, and reports whether that ended the skip.
func (t *Tracker) SkipRows(n int32) (ended bool) {
	t.skip -= n
	return t.skip == 0
}

// UnskipRows gives back n rows that SkipRows counted but no row came for
// (a bulk pass ended early), and reports whether that started the skip
// again.
func (t *Tracker) UnskipRows(n int32) (restarted bool) {
	restarted = t.skip == 0
	t.skip += n
	return restarted
}

// suspended is the skip of a suspended column: longer than any result set,
// it ends only when Resume ends it.
const suspended = math.MaxInt32

// Suspend puts the column in a skip that only Resume ends, for a column
// whose values the result set does not want looked up until further notice
// (pgcache's lazy columns), keeping its own skip in ref for Ref.Close. It
// reports whether that started a skip (the column was not Skipping).
func (t *Tracker) Suspend(ref *Ref) (started bool) {
	started = t.skip == 0
	ref.ownSkip = t.skip
	t.skip = suspended
	return started
}

// Resume ends a suspended column's skip: its values are looked up from
// the next row on, and the own skip Suspend kept is dropped. It reports
// whether a skip ended.
func (t *Tracker) Resume() (ended bool) {
	if t.skip > 0 {
		t.skip = 0
		return true
	}
	return false
}

// Observe records the outcome of one lookup and closes the window when
// full. It reports whether that started a skip.
func (t *Tracker) Observe(o Outcome) (skipStarted bool) {
	// Branch-free: Hit is 2 and Admitted 1.
	t.hits += int16(o >> 1)
	t.adms += int16(o & 1)
	return t.count()
}

// ObserveAdmission is Observe for a lookup of a packed key that missed the
// table, with quick set when it admitted the value the column's previous
// lookup missed: a value that came on two rows in a row. A column whose
// values come exactly so, twice and never again, admits every second value
// and never hits; a column repeating with any period hits soon after its
// first admissions, or makes none of this kind. So QuickAdmissions such
// admissions in a window without a hit fail the window there, whatever its
// length, rather than after the warm-up windows.
func (t *Tracker) ObserveAdmission(o Outcome, quick bool) (skipStarted bool) {
	if quick && o == Admitted {
		if t.quick++; t.quick >= QuickAdmissions && t.hits == 0 {
			return t.closeFailed()
		}
	}
	return t.Observe(o)
}

// QuickAdmissions: see ObserveAdmission.
const QuickAdmissions = 64

// ObserveHit is Observe(Hit), small enough to inline in a caller's hit
// path. (A hit can close a window that does not pay, and so start a skip.)
func (t *Tracker) ObserveHit() (skipStarted bool) {
	t.hits++
	return t.count()
}

// Quiet (quiet_word.go, quiet_fields.go) reports whether the column is
// looked up (it is not in a skip) and its next lookup cannot close its
// window. A caller may then count that lookup with QuietMiss or QuietHit,
// which close nothing and so report nothing: a loop of such lookups calls
// no function (pgcache's advance).

// quietFields is Quiet from the two fields, the definition quiet_word.go's
// one compare must agree with (TestQuietWord).
func (t *Tracker) quietFields() bool { return t.skip == 0 && t.left > 1 }

// QuietMiss is ObserveMiss for a Quiet column.
func (t *Tracker) QuietMiss() { t.left-- }

// QuietHit is ObserveHit for a Quiet column.
func (t *Tracker) QuietHit() {
	t.hits++
	t.left--
}

// ObserveMiss is Observe(Missed), small enough to inline in a caller's
// miss path.
func (t *Tracker) ObserveMiss() (skipStarted bool) { return t.count() }

// count counts a lookup in the window and closes it when full.
func (t *Tracker) count() (skipStarted bool) {
	if t.left--; t.left <= 0 {
		return t.closeWindow()
	}
	return false
}

// pays reports whether a window of n lookups, or the early part of one,
// that has just closed shows enough reuse to keep the column cached (see
// the rules above): any at all in a column's first window; while the column
// warms up, a share of 1/minShare reused, hits or admissions, and in a full
// window some hits (a column whose admissions never hit has had its chance
// by its second window, which holds the first hits of any cycle up to
// cache.Slots values long); after that, a share of 1/minShare hits, in a
// window's early part as in the whole, and the whole churnRatio hits per
// admission.
func (t *Tracker) pays(n int32, early bool) bool {
	hits, adms := int32(t.hits), int32(t.adms)
	switch {
	case t.warm == WarmWindows && !early:
		return hits > 0 || adms > 0
	case t.warm > 0:
		return hits+adms >= n/minShare && (early || hits > 0)
	case early:
		return hits >= n/minShare
	}
	return hits >= n/minShare && hits >= int32(churnRatio)*adms
}

// closeWindow starts a skip after a window that did not pay (or ends the
// back-off after one that did), opens the next window and reports whether
// it started a skip. At the end of a window's early part it lets a window
// that pays so far go on, and fails one that does not.
func (t *Tracker) closeWindow() (skipStarted bool) {
	if t.rest > 0 {
		if t.pays(EarlyWindow, true) {
			t.left, t.rest = t.rest, 0
			return false
		}
		t.rest = 0
		skipStarted = true
	} else {
		skipStarted = !t.pays(t.window(), false)
	}
	return t.endWindow(skipStarted)
}

// closeFailed closes the current window as one that does not pay.
func (t *Tracker) closeFailed() (skipStarted bool) { return t.endWindow(true) }

// endWindow ends a window judged to pay or not (skipStarted), starting a
// skip or ending the back-off, and opens the next window.
func (t *Tracker) endWindow(skipStarted bool) bool {
	t.ends++
	if t.warm > 0 {
		t.warm--
	}
	if skipStarted {
		if t.next == 0 {
			t.next = SkipFirst
		}
		t.skip = t.next
		t.next = min(2*t.next, SkipMax)
	} else {
		t.next = 0
	}
	t.hits, t.adms, t.quick = 0, 0, 0
	t.left, t.rest = EarlyWindow, t.window()-EarlyWindow
	return skipStarted
}

// window is the length of the current window: a full one, or a re-probe
// while the column backs off.
func (t *Tracker) window() int32 {
	if t.next != 0 {
		return ReprobeWindow
	}
	return ProbeWindow
}
