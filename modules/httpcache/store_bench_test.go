package httpcache

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/dgraph-io/ristretto/v2"
)

// The store's eviction library was chosen by this benchmark: a Zipf
// workload (s=1.1 over 200k URLs, bodies of 1-64 KiB) against a 64 MiB
// budget, reporting the hit ratio and the cost per operation.
//
//	go test -run '^$' -bench Store ./modules/httpcache/
func BenchmarkStore(b *testing.B) {
	const budget = 64 << 20
	type kv interface {
		get(string) bool
		set(string, int)
	}
	impls := map[string]func() kv{
		"otter":     func() kv { return otterKV{newMemoryStore(budget, nil)} },
		"ristretto": func() kv { return newRistrettoKV(budget) },
	}
	for _, name := range []string{"otter", "ristretto"} {
		b.Run(name, func(b *testing.B) {
			s := impls[name]()
			rng := rand.New(rand.NewPCG(1, 2))
			zipf := rand.NewZipf(rng, 1.1, 1, 200_000)
			keys := make([]string, 200_001)
			for i := range keys {
				keys[i] = "https://example.com/item/" + strconv.Itoa(i)
			}
			var hits, total int
			b.ResetTimer()
			for b.Loop() {
				k := int(zipf.Uint64())
				total++
				if s.get(keys[k]) {
					hits++
					continue
				}
				s.set(keys[k], 1<<10+(k*7919)%(63<<10))
			}
			b.ReportMetric(float64(hits)/float64(total)*100, "hit%")
		})
	}
}

type otterKV struct{ s *memoryStore }

func (o otterKV) get(k string) bool { _, ok := o.s.Get(k); return ok }
func (o otterKV) set(k string, size int) {
	o.s.Set(k, &entry{size: size}, size)
}

type ristrettoKV struct {
	c *ristretto.Cache[string, *entry]
}

func newRistrettoKV(budget int64) ristrettoKV {
	c, err := ristretto.NewCache(&ristretto.Config[string, *entry]{NumCounters: 2_000_000, MaxCost: budget, BufferItems: 64})
	if err != nil {
		panic(err)
	}
	return ristrettoKV{c}
}

func (r ristrettoKV) get(k string) bool { _, ok := r.c.Get(k); return ok }
func (r ristrettoKV) set(k string, size int) {
	r.c.Set(k, &entry{size: size}, int64(size))
}
