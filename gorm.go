package pgcache

// GORM asks a model field's type for its column type through the method
// GormDataType() string (gorm.io/gorm/schema.GormDataTypeInterface), found by
// an interface assertion, so pgcache's types can answer without importing
// GORM. gorm.io/driver/postgres uses a data type it does not know as the
// column type verbatim, so an untagged pgcache.Decimal field becomes a
// numeric column and an untagged pgcache.Hstore field an hstore column (the
// hstore extension must exist in the database). A gorm:"type:…" tag still
// wins, for numeric(12,2) and the like.
//
// GORM's per-dialect hook, GormDBDataType(*gorm.DB, *schema.Field) string,
// names GORM's types in its signature; the root module cannot offer it
// without importing GORM, and does not need to: pgcache only speaks to
// PostgreSQL.

// GormDataType returns "numeric", the column type GORM's AutoMigrate gives an
// untagged Decimal field.
func (Decimal) GormDataType() string { return "numeric" }

// GormDataType returns "numeric", the column type GORM's AutoMigrate gives an
// untagged NullDecimal field.
func (NullDecimal) GormDataType() string { return "numeric" }

// GormDataType returns "hstore", the column type GORM's AutoMigrate gives an
// untagged Hstore field.
func (Hstore) GormDataType() string { return "hstore" }

// GormDataType returns "hstore", the column type GORM's AutoMigrate gives an
// untagged NullHstore field.
func (NullHstore) GormDataType() string { return "hstore" }
