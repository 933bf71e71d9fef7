package compute

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseConfig parses a configuration written as comma-separated key=value
// pairs with keys cpu (GHz), threads, mem (GHz), throttle (idle cycles) and
// device, e.g. "cpu=2.4,threads=8,mem=1.6". The empty string is the zero
// Config. String output of Config is for humans and is not parsed.
func ParseConfig(s string) (Config, error) {
	var c Config
	s = strings.TrimSpace(s)
	if s == "" {
		return c, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return Config{}, fmt.Errorf("config %q: %q is not key=value", s, kv)
		}
		if seen[k] {
			return Config{}, fmt.Errorf("config %q: key %q repeated", s, k)
		}
		seen[k] = true
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, fmt.Errorf("config %q: %s=%q is not a finite non-negative number", s, k, v)
			}
			return f, nil
		}
		var err error
		switch k {
		case "cpu":
			c.CPUFreqGHz, err = num()
		case "mem":
			c.MemFreqGHz, err = num()
		case "throttle":
			c.MemThrottle, err = num()
		case "threads":
			n, perr := strconv.Atoi(v)
			if perr != nil || n < 0 {
				err = fmt.Errorf("config %q: threads=%q is not a non-negative integer", s, v)
			}
			c.Threads = n
		case "device":
			c.Device = v
		default:
			return Config{}, fmt.Errorf("config %q: unknown key %q (want cpu, threads, mem, throttle, device)", s, k)
		}
		if err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// ParseTarget parses a Target from a default configuration and per-region
// overrides written as "pattern:config", e.g. ParseTarget("cpu=2.4",
// []string{"io_*:cpu=1.2"}). Patterns are checked when a Pricer is built.
func ParseTarget(def string, overrides []string) (Target, error) {
	d, err := ParseConfig(def)
	if err != nil {
		return Target{}, err
	}
	t := Target{Default: d}
	for _, o := range overrides {
		pat, cfg, ok := strings.Cut(o, ":")
		if !ok || strings.TrimSpace(pat) == "" {
			return Target{}, fmt.Errorf("region config %q: want pattern:key=value,...", o)
		}
		c, err := ParseConfig(cfg)
		if err != nil {
			return Target{}, fmt.Errorf("region config %q: %w", o, err)
		}
		t.Rules = append(t.Rules, ConfigRule{Pattern: strings.TrimSpace(pat), Config: c})
	}
	return t, nil
}
