// Package promreg registers lastmile's process-wide Prometheus collectors
// in each config's registry (Caddy makes a new one per config load, and
// the collectors outlive it so counters survive reloads).
package promreg

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers each collector in reg unless it is registered there
// already (several modules of one config share them).
func Register(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			if _, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); !ok {
				return err
			}
		}
	}
	return nil
}
