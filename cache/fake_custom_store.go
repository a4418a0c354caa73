package cache

// FakeCustomStore is a [Store] for tests whose methods call the matching
// function field. A method whose field is nil does nothing and returns zero
// values (nil error, nothing found, no objects, "").
type FakeCustomStore struct {
	AddFunc                          func(obj any) error
	UpdateFunc                       func(obj any) error
	DeleteFunc                       func(obj any) error
	ListFunc                         func() []any
	ListKeysFunc                     func() []string
	GetFunc                          func(obj any) (item any, exists bool, err error)
	GetByKeyFunc                     func(key string) (item any, exists bool, err error)
	ReplaceFunc                      func(list []any, resourceVersion string) error
	ResyncFunc                       func() error
	BookmarkFunc                     func(rv string)
	LastStoreSyncResourceVersionFunc func() string
}

var _ Store = (*FakeCustomStore)(nil)

// Add calls AddFunc if it is set.
func (f *FakeCustomStore) Add(obj any) error {
	if f.AddFunc != nil {
		return f.AddFunc(obj)
	}
	return nil
}

// Update calls UpdateFunc if it is set.
func (f *FakeCustomStore) Update(obj any) error {
	if f.UpdateFunc != nil {
		return f.UpdateFunc(obj)
	}
	return nil
}

// Delete calls DeleteFunc if it is set.
func (f *FakeCustomStore) Delete(obj any) error {
	if f.DeleteFunc != nil {
		return f.DeleteFunc(obj)
	}
	return nil
}

// List calls ListFunc if it is set.
func (f *FakeCustomStore) List() []any {
	if f.ListFunc != nil {
		return f.ListFunc()
	}
	return nil
}

// ListKeys calls ListKeysFunc if it is set.
func (f *FakeCustomStore) ListKeys() []string {
	if f.ListKeysFunc != nil {
		return f.ListKeysFunc()
	}
	return nil
}

// Get calls GetFunc if it is set.
func (f *FakeCustomStore) Get(obj any) (item any, exists bool, err error) {
	if f.GetFunc != nil {
		return f.GetFunc(obj)
	}
	return nil, false, nil
}

// GetByKey calls GetByKeyFunc if it is set.
func (f *FakeCustomStore) GetByKey(key string) (item any, exists bool, err error) {
	if f.GetByKeyFunc != nil {
		return f.GetByKeyFunc(key)
	}
	return nil, false, nil
}

// Replace calls ReplaceFunc if it is set.
func (f *FakeCustomStore) Replace(list []any, resourceVersion string) error {
	if f.ReplaceFunc != nil {
		return f.ReplaceFunc(list, resourceVersion)
	}
	return nil
}

// Resync calls ResyncFunc if it is set.
func (f *FakeCustomStore) Resync() error {
	if f.ResyncFunc != nil {
		return f.ResyncFunc()
	}
	return nil
}

// Bookmark calls BookmarkFunc if it is set.
func (f *FakeCustomStore) Bookmark(rv string) {
	if f.BookmarkFunc != nil {
		f.BookmarkFunc(rv)
	}
}

// LastStoreSyncResourceVersion calls LastStoreSyncResourceVersionFunc if it is
// set.
func (f *FakeCustomStore) LastStoreSyncResourceVersion() string {
	if f.LastStoreSyncResourceVersionFunc != nil {
		return f.LastStoreSyncResourceVersionFunc()
	}
	return ""
}
