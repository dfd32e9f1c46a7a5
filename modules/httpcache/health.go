package httpcache

import "fmt"

// probeKey cannot collide with a cache key: those start with a method.
const probeKey = "\x00lastmile-health-probe"

// ProbeStores writes, reads back and deletes a small entry in every open
// cache store; the anycast health model calls it, and a store that cannot
// keep what it was just given makes the node unready.
func ProbeStores() error {
	var err error
	storesByName.Range(func(k, v any) bool {
		s := v.(*namedStore)
		s.Set(probeKey, probeKey, len(probeKey))
		got, ok := s.Get(probeKey)
		s.Delete(probeKey)
		if !ok || got != probeKey {
			err = fmt.Errorf("cache store %q lost a probe entry it was just given", k)
			return false
		}
		return true
	})
	return err
}
