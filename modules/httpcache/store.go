package httpcache

import (
	"strings"
	"sync"

	"github.com/maypok86/otter/v2"
)

// storage keeps entries within a byte budget. It is small on purpose, so a
// shared tier (another node's memory, disk) can stand behind it later.
type storage interface {
	Get(key string) (any, bool)
	Set(key string, value any, size int)
	Delete(key string) bool
	// Keys calls f for every key until f returns false.
	Keys(f func(key string) bool)
	// KeysWithTag returns the keys of entries stored with tag.
	KeysWithTag(tag string) []string
	Clear()
	// Usage is the number of entries and the bytes charged for them.
	Usage() (entries int, bytes uint64)
	SetBudget(bytes uint64)
}

// memoryStore is storage in this process's memory. Eviction is otter's
// (W-TinyLFU with a weigher), chosen by BenchmarkStore against ristretto:
// the hit ratios are within 2 points and the costs within 15%, but otter
// applies writes at once (ristretto buffers and may drop them, so a
// response just stored can miss), and it can list its keys, which purging
// by prefix needs and ristretto cannot.
type memoryStore struct {
	cache *otter.Cache[string, stored]

	mu   sync.Mutex
	tags map[string]map[string]struct{} // tag -> keys
}

// stored wraps a value with its size, for the weigher.
type stored struct {
	value any
	size  uint32
}

func newMemoryStore(budget uint64, onEvict func()) *memoryStore {
	s := &memoryStore{tags: make(map[string]map[string]struct{})}
	s.cache = otter.Must(&otter.Options[string, stored]{
		MaximumWeight: budget,
		Weigher:       func(key string, v stored) uint32 { return v.size + uint32(len(key)) },
		OnAtomicDeletion: func(e otter.DeletionEvent[string, stored]) {
			if e.Cause == otter.CauseOverflow && onEvict != nil {
				onEvict()
			}
			if en, ok := e.Value.value.(*entry); ok && len(en.tags) > 0 && e.Cause != otter.CauseReplacement {
				s.untag(e.Key, en.tags)
			}
		},
	})
	return s
}

func (s *memoryStore) Get(key string) (any, bool) {
	v, ok := s.cache.GetIfPresent(key)
	return v.value, ok
}

func (s *memoryStore) Set(key string, value any, size int) {
	if en, ok := value.(*entry); ok && len(en.tags) > 0 {
		s.tag(key, en.tags)
	}
	s.cache.Set(key, stored{value: value, size: uint32(min(size, 1<<31))})
}

func (s *memoryStore) Delete(key string) bool {
	_, ok := s.cache.Invalidate(key)
	return ok
}

func (s *memoryStore) Keys(f func(string) bool) {
	for k := range s.cache.Keys() {
		if !f(k) {
			return
		}
	}
}

func (s *memoryStore) KeysWithTag(tag string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.tags[tag]))
	for k := range s.tags[tag] {
		keys = append(keys, k)
	}
	return keys
}

func (s *memoryStore) Clear() { s.cache.InvalidateAll() }

func (s *memoryStore) Usage() (int, uint64) {
	return s.cache.EstimatedSize(), s.cache.WeightedSize()
}

func (s *memoryStore) SetBudget(bytes uint64) { s.cache.SetMaximum(bytes) }

func (s *memoryStore) tag(key string, tags []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tags {
		keys := s.tags[t]
		if keys == nil {
			keys = make(map[string]struct{})
			s.tags[t] = keys
		}
		keys[key] = struct{}{}
	}
}

func (s *memoryStore) untag(key string, tags []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tags {
		delete(s.tags[t], key)
		if len(s.tags[t]) == 0 {
			delete(s.tags, t)
		}
	}
}

// Tags are read from Surrogate-Key (space-separated) and Cache-Tag
// (comma-separated); each is bounded so a response cannot bloat the index.
const (
	maxTags      = 32
	maxTagLength = 256
)

func parseTags(surrogateKey, cacheTag []string) []string {
	var tags []string
	add := func(t string) {
		if t != "" && len(t) <= maxTagLength && len(tags) < maxTags {
			tags = appendUnique(tags, t)
		}
	}
	for _, line := range surrogateKey {
		for _, t := range strings.Fields(line) {
			add(t)
		}
	}
	for _, line := range cacheTag {
		for _, t := range strings.Split(line, ",") {
			add(strings.TrimSpace(t))
		}
	}
	return tags
}
