package compute

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
)

// ParseConfig parses a configuration written as comma-separated key=value
// pairs with keys cpu (GHz; freq is a synonym), threads, mem (GHz), throttle
// (idle cycles) and device, e.g. "cpu=2.4,threads=8,mem=1.6". The empty string is the zero
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
		if k == "freq" {
			k = "cpu"
		}
		if !ok || v == "" {
			return Config{}, fmt.Errorf("config %q: %q is not key=value", s, kv)
		}
		if seen[k] {
			return Config{}, fmt.Errorf("config %q: key %q repeated", s, k)
		}
		seen[k] = true
		// A zero Config field means "as recorded": a key written as 0
		// is refused rather than silently taken for that (a clock or a
		// thread count of 0 runs nothing).
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, fmt.Errorf("config %q: %s=%q is not a finite non-negative number", s, k, v)
			}
			if f == 0 && k != "throttle" {
				return 0, fmt.Errorf("config %q: %s=0: want a frequency > 0 GHz (leave the key out for the recorded one)", s, k)
			}
			if k != "throttle" {
				if err := CheckGHz(f); err != nil {
					return 0, fmt.Errorf("config %q: %s=%s: %w", s, k, v, err)
				}
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
			} else if n == 0 {
				err = fmt.Errorf("config %q: threads=0: want a thread count > 0 (leave the key out for the recorded one)", s)
			}
			c.Threads = n
		case "device":
			c.Device = v
		default:
			return Config{}, fmt.Errorf("config %q: unknown key %q (want cpu or freq, threads, mem, throttle, device)", s, k)
		}
		if err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// ParseTarget parses a Target from a default configuration and per-region
// overrides written as for ParseConfigRule, e.g. ParseTarget("cpu=2.4",
// []string{"io_*:cpu=1.2"}). Patterns are checked when a Pricer is built.
func ParseTarget(def string, overrides []string) (Target, error) {
	d, err := ParseConfig(def)
	if err != nil {
		return Target{}, err
	}
	t := Target{Default: d}
	for _, o := range overrides {
		r, err := ParseConfigRule(o)
		if err != nil {
			return Target{}, err
		}
		t.Rules = append(t.Rules, r)
	}
	return t, nil
}

// ParseConfigRule parses a per-region configuration written as
// "pattern:config" or "pattern=config", e.g. "io_*:cpu=1.2" or
// "stencil.*=device=gpu0": the pattern ends at the first ':' or '=',
// whichever comes first, so it contains neither. The pattern's glob
// syntax is checked here.
func ParseConfigRule(s string) (ConfigRule, error) {
	i := strings.IndexAny(s, ":=")
	if i < 0 || strings.TrimSpace(s[:i]) == "" {
		return ConfigRule{}, fmt.Errorf("region config %q: want pattern:key=value,... or pattern=key=value,...", s)
	}
	pat := strings.TrimSpace(s[:i])
	if _, err := path.Match(pat, ""); err != nil {
		return ConfigRule{}, fmt.Errorf("region config %q: pattern %q: %w", s, pat, err)
	}
	c, err := ParseConfig(s[i+1:])
	if err != nil {
		return ConfigRule{}, fmt.Errorf("region config %q: %w", s, err)
	}
	return ConfigRule{Pattern: pat, Config: c}, nil
}
