package network

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// PerByte is a time per byte, such as LogGOPS's G and O. It is held
// exactly as an integer number of femtoseconds (10⁻⁶ ns) per byte, so
// that 0.08 ns per byte (a 100 Gb/s link) and every decimal with up to
// six decimal places of ns is exact, and pricing bytes is integer
// arithmetic with one rounding (Times). The zero value is 0 ns per byte.
type PerByte struct{ fs int64 }

// FsPerNs is the resolution of a PerByte: femtoseconds per nanosecond.
const FsPerNs = 1_000_000

// MaxPerByteNs is the largest time per byte, in ns, that a PerByte
// holds: 10¹² ns (1,000 s) a byte, beyond any network and small enough
// that a sum of two fits an int64 of femtoseconds.
const MaxPerByteNs = 1_000_000_000_000

// NsPerByte returns a whole number of ns per byte as a PerByte. Values
// beyond ±MaxPerByteNs saturate just past it, so that Validate rejects
// them.
func NsPerByte(ns int64) PerByte {
	const lim = MaxPerByteNs + 1
	return PerByte{min(max(ns, -lim), lim) * FsPerNs}
}

// PerByteFs returns fs femtoseconds per byte as a PerByte.
func PerByteFs(fs int64) PerByte { return PerByte{fs} }

// Femtoseconds returns x in femtoseconds per byte, its exact value.
func (x PerByte) Femtoseconds() int64 { return x.fs }

// Max returns the larger of x and y.
func (x PerByte) Max(y PerByte) PerByte { return PerByte{max(x.fs, y.fs)} }

// Times returns n bytes at x per byte, n·x, rounded once to the nearest
// ns, halves up. n·x is computed exactly in 128-bit integer arithmetic,
// so the result does not depend on the platform. For n, x ≥ 0 a product
// above graph.MaxTimeNs saturates at graph.MaxTimeNs+1; n < 0 or x < 0
// gives 0. Times allocates nothing.
func (x PerByte) Times(n int64) int64 {
	if n <= 0 || x.fs <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(x.fs))
	var q, r uint64
	if hi == 0 {
		q, r = lo/FsPerNs, lo%FsPerNs
	} else if hi < FsPerNs {
		q, r = bits.Div64(hi, lo, FsPerNs)
	} else {
		return graph.MaxTimeNs + 1
	}
	if r >= FsPerNs/2 {
		q++
	}
	return int64(min(q, uint64(graph.MaxTimeNs)+1))
}

// String formats x in ns per byte as ParsePerByte reads it: an integer
// when x is whole ("6"), else a decimal without trailing zeros ("0.08").
func (x PerByte) String() string {
	v := x.fs
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	if v%FsPerNs == 0 {
		return sign + strconv.FormatInt(v/FsPerNs, 10)
	}
	frac := strings.TrimRight(fmt.Sprintf("%06d", v%FsPerNs), "0")
	return sign + strconv.FormatInt(v/FsPerNs, 10) + "." + frac
}

// ParsePerByte reads a time per byte: a non-negative decimal number of ns
// per byte ("6", "0.08", "2.5e-2"), or a bandwidth ("12.5GB/s",
// "100Gb/s", "25GiB/s"), which is 1/bandwidth per byte. Byte rates take
// B/s, KB/s (also kB/s), MB/s, GB/s, TB/s in decimal SI units and KiB/s,
// MiB/s, GiB/s, TiB/s in binary ones; bit rates take b/s, Kb/s (kb/s),
// Mb/s, Gb/s, Tb/s, 8 bits a byte. The value is rounded to the nearest
// femtosecond per byte, halves up; a non-zero value that rounds to zero,
// a zero bandwidth and a value above MaxPerByteNs are errors.
func ParsePerByte(s string) (PerByte, error) {
	num, unit := splitUnit(s)
	r, err := parseDecimal(num, s)
	if err != nil {
		return PerByte{}, err
	}
	if unit != "" {
		scale, ok := bandwidthUnits[unit]
		if !ok {
			return PerByte{}, fmt.Errorf("unknown unit %q (want a bandwidth such as 12.5GB/s or 100Gb/s)", unit)
		}
		if r.Sign() <= 0 {
			return PerByte{}, fmt.Errorf("bandwidth %s is not positive", strings.TrimSpace(s))
		}
		// bytes per second = r·scale; femtoseconds per byte = 10¹⁵ / that.
		r.Inv(r.Mul(r, scale))
		r.Mul(r, big.NewRat(1e15, 1))
	} else {
		r.Mul(r, big.NewRat(FsPerNs, 1))
	}
	fs := roundHalfUp(r)
	switch {
	case r.Sign() < 0:
		return PerByte{}, fmt.Errorf("%s is negative", strings.TrimSpace(s))
	case !fs.IsInt64() || fs.Int64() > MaxPerByteNs*FsPerNs:
		return PerByte{}, fmt.Errorf("%s exceeds %d ns per byte", strings.TrimSpace(s), int64(MaxPerByteNs))
	case fs.Sign() == 0 && r.Sign() != 0:
		return PerByte{}, fmt.Errorf("%s is below the resolution of 10⁻⁶ ns per byte", strings.TrimSpace(s))
	}
	return PerByte{fs.Int64()}, nil
}

// ParseNs reads a time: a non-negative number of ns ("1500"), or a
// number with a unit: ns, us (or µs), ms, s ("800ns", "1.5us", "2ms").
// The time must be a whole number of ns that fits an int64; the models'
// own bound, graph.MaxTimeNs, is their Validate's to check.
func ParseNs(s string) (int64, error) {
	num, unit := splitUnit(s)
	r, err := parseDecimal(num, s)
	if err != nil {
		return 0, err
	}
	scale, ok := timeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want ns, us, ms or s)", unit)
	}
	r.Mul(r, big.NewRat(scale, 1))
	switch {
	case r.Sign() < 0:
		return 0, fmt.Errorf("%s is negative", strings.TrimSpace(s))
	case !r.IsInt():
		return 0, fmt.Errorf("%s is not a whole number of ns", strings.TrimSpace(s))
	case !r.Num().IsInt64():
		return 0, fmt.Errorf("%s is too large (above %d ns)", strings.TrimSpace(s), int64(math.MaxInt64))
	}
	return r.Num().Int64(), nil
}

// timeUnits gives each time unit's length in ns.
var timeUnits = map[string]int64{"": 1, "ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}

// bandwidthUnits gives each bandwidth unit in bytes per second.
var bandwidthUnits = func() map[string]*big.Rat {
	m := map[string]*big.Rat{}
	dec := map[string]int64{"": 1, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
	for p, v := range dec {
		m[p+"B/s"] = big.NewRat(v, 1)
		m[p+"b/s"] = big.NewRat(v, 8)
	}
	for p, v := range map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40} {
		m[p+"B/s"] = big.NewRat(v, 1)
	}
	return m
}()

// splitUnit splits s into its number and the unit that follows it.
func splitUnit(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E')
	})
	if i < 0 {
		return s, ""
	}
	return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
}

// parseDecimal reads the decimal number num of value s exactly, with an
// exponent of at most ±30 (which keeps big numbers small).
func parseDecimal(num, s string) (*big.Rat, error) {
	if num == "" {
		num = strings.TrimSpace(s)
	}
	bad := fmt.Errorf("%q is not a number", num)
	if num == "" || len(num) > 64 {
		return nil, bad
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		e, err := strconv.Atoi(num[i+1:])
		if err != nil {
			return nil, bad
		}
		if e < -30 || e > 30 {
			return nil, fmt.Errorf("%q: exponent beyond ±30", num)
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, bad
	}
	return r, nil
}

// roundHalfUp returns r rounded to the nearest integer, halves toward +∞.
func roundHalfUp(r *big.Rat) *big.Int {
	// floor((2·num + den) / (2·den))
	n := new(big.Int).Lsh(r.Num(), 1)
	n.Add(n, r.Denom())
	d := new(big.Int).Lsh(r.Denom(), 1)
	return n.Div(n, d) // Euclidean division: floor for d > 0
}

// PerByteFromFloat returns v ns per byte, as a TOML decoder or a sweep
// axis gives it, read through its shortest decimal form (strconv 'g', -1)
// with ParsePerByte's rules, so that 0.08 is 80,000 fs exactly.
func PerByteFromFloat(v float64) (PerByte, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return PerByte{}, fmt.Errorf("%v is not a number", v)
	}
	return ParsePerByte(strconv.FormatFloat(v, 'g', -1, 64))
}

// UnmarshalTOML reads a time per byte from a TOML value (the
// BurntSushi/toml Unmarshaler interface): an integer or a float of ns per
// byte, or a string ParsePerByte reads ("0.08", "100Gb/s"). Negative
// numbers are kept, for the caller's range check to report.
func (x *PerByte) UnmarshalTOML(v any) error {
	const want = "is not a number of ns per byte or a bandwidth like \"12.5GB/s\""
	var err error
	switch v := v.(type) {
	case int64:
		if v > MaxPerByteNs {
			return fmt.Errorf("%d exceeds %d ns per byte", v, int64(MaxPerByteNs))
		}
		*x = NsPerByte(v)
	case float64:
		var y PerByte
		y, err = PerByteFromFloat(math.Abs(v))
		if v < 0 {
			y.fs = -y.fs
		}
		*x = y
	case string:
		if *x, err = ParsePerByte(v); err != nil {
			return fmt.Errorf("%q %s: %w", v, want, err)
		}
	default:
		return fmt.Errorf("%v %s", v, want)
	}
	if err != nil {
		return fmt.Errorf("%v %s: %w", v, want, err)
	}
	return nil
}

// ParseBandwidth reads a bandwidth with one of ParsePerByte's units
// ("100Gb/s", "12.5GB/s", "25GiB/s") and returns it in bytes per ns
// (numerically GB/s), the unit of package topo's links. It must be
// positive.
func ParseBandwidth(s string) (float64, error) {
	num, unit := splitUnit(s)
	scale, ok := bandwidthUnits[unit]
	if !ok || unit == "" {
		return 0, fmt.Errorf("%q is not a bandwidth like 12.5GB/s or 100Gb/s", strings.TrimSpace(s))
	}
	r, err := parseDecimal(num, s)
	if err != nil {
		return 0, err
	}
	if r.Sign() <= 0 {
		return 0, fmt.Errorf("bandwidth %s is not positive", strings.TrimSpace(s))
	}
	bw, _ := r.Mul(r, scale).Quo(r, big.NewRat(1e9, 1)).Float64()
	if bw == 0 || math.IsInf(bw, 0) {
		return 0, fmt.Errorf("bandwidth %s is out of range", strings.TrimSpace(s))
	}
	return bw, nil
}
