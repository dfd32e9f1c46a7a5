package httpcache

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"
)

// stores keeps each named store across config reloads: a reload must not
// empty the cache.
var stores = caddy.NewUsagePool()

// namedStore is a store with what is shared by the handlers using it.
type namedStore struct {
	name string
	storage
	flights *flights
	clock   *storeClock
	// purgeToken is the newest config's token.
	purgeToken atomic.Pointer[string]
}

func (s *namedStore) Destruct() error {
	s.Clear()
	return nil
}

var storesByName sync.Map // name -> *namedStore, for the purge API

func openStore(name string, budget uint64, token string) (*namedStore, error) {
	v, loaded, err := stores.LoadOrNew(name, func() (caddy.Destructor, error) {
		s := &namedStore{name: name, flights: newFlights(), clock: newStoreClock()}
		s.storage = newMemoryStore(budget, func() { metrics.evictions.Inc() })
		return s, nil
	})
	if err != nil {
		return nil, fmt.Errorf("opening cache store %q: %w", name, err)
	}
	s := v.(*namedStore)
	if loaded {
		s.SetBudget(budget)
	}
	s.purgeToken.Store(&token)
	storesByName.Store(name, s)
	return s, nil
}

func closeStore(name string) error {
	deleted, err := stores.Delete(name)
	if deleted {
		storesByName.Delete(name)
	}
	return err
}

func lookupStore(name string) (*namedStore, bool) {
	v, ok := storesByName.Load(name)
	if !ok {
		return nil, false
	}
	return v.(*namedStore), true
}
