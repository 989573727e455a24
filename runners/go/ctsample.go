// ct-sample (docs/protocol.md): single encryptions of a fixed and a random input
// class, interleaved in an order drawn from the seed, each timed alone, for the
// dudect-style test of `cipherbench ct` (cipherbench/ct/dudect.py).
package main

import "time"

// splitMix64 (Steele, Lea, Flood, OOPSLA 2014): the class order and the random inputs.
type splitMix64 uint64

func (s *splitMix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func ctSample(req request) (map[string]any, error) {
	e, err := target(req)
	if err != nil {
		return nil, err
	}
	p := e.prim
	if p.Kind == "hash" {
		return nil, unsupported("%s is a hash: ct-sample times ciphers", p.Name)
	}
	vary, err := req.str("vary")
	if err != nil {
		return nil, err
	}
	if vary != "key" && vary != "plaintext" {
		return nil, fail("vary must be 'key' or 'plaintext'")
	}
	samples, err := req.count("samples", 0, true)
	if err != nil {
		return nil, err
	}
	seed, err := req.count("seed", 0, true)
	if err != nil {
		return nil, err
	}
	if samples < 2 || samples > 1000000 {
		return nil, fail("samples must be in 2..1000000")
	}
	if _, err := req.hex("key", true); err != nil {
		return nil, err
	}
	key, iv, aad, err := req.keyIVAAD(p)
	if err != nil {
		return nil, err
	}
	msg, err := req.hex("input", true)
	if err != nil {
		return nil, err
	}
	if len(msg) == 0 || len(msg) > 65536 {
		return nil, fail("input must be 1 to 65536 bytes")
	}
	if err := checkInput(p, len(msg)); err != nil {
		return nil, err
	}
	byKey := vary == "key"
	fixed := msg
	if byKey {
		fixed = key
	}
	rng := splitMix64(seed)
	classes := make([]int, samples)
	inputs := make([][]byte, samples)
	for i := range classes {
		classes[i] = int(rng.next() >> 63)
	}
	// Every call reads its own slice of one array, the fixed class a copy of the fixed value:
	// the classes differ in their values only, never in where they lie (one shared buffer
	// for the fixed class, always in L1, against fresh ones for the random class, read
	// |t| up to 23 on go-std's AES-128-GCM).
	all := make([]byte, len(classes)*len(fixed))
	for i, c := range classes {
		inputs[i] = all[i*len(fixed) : (i+1)*len(fixed) : (i+1)*len(fixed)]
		if c == 0 {
			copy(inputs[i], fixed)
			continue
		}
		for j := range inputs[i] {
			inputs[i][j] = byte(rng.next() >> 56)
		}
	}
	call, err := ctCall(e, byKey, key, iv, aad, msg)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(inputs) && i < 1000; i++ { // warm-up, untimed
		if err := call(inputs[i]); err != nil {
			return nil, fail("%s: %v", p.Name, err)
		}
	}
	times := make([]uint64, samples)
	for i, x := range inputs {
		t0 := time.Now()
		err := call(x)
		times[i] = uint64(time.Since(t0).Nanoseconds())
		if err != nil {
			return nil, fail("%s: %v", p.Name, err)
		}
	}
	return map[string]any{"status": "ok", "vary": vary, "samples": samples,
		"timer": "time.Now (monotonic) ns", "classes": classes, "times": times}, nil
}

// ctCall: one timed call. Vary "key": key setup, IV and the whole input; "plaintext": the
// context keyed once, then IV and the whole input. AEADs seal (tag included).
func ctCall(e *entry, byKey bool, key, iv, aad, msg []byte) (func(x []byte) error, error) {
	out := make([]byte, len(msg), len(msg)+64)
	if e.prim.Kind == "aead" {
		fixedAEAD, err := e.newAEAD(key)
		if err != nil {
			return nil, fail("%s: %v", e.prim.Name, err)
		}
		return func(x []byte) error {
			if !byKey {
				fixedAEAD.Seal(out[:0], iv, x, aad)
				return nil
			}
			a, err := e.newAEAD(x)
			if err == nil {
				a.Seal(out[:0], iv, msg, aad)
			}
			return err
		}, nil
	}
	fixedCtx, err := e.newKey(key)
	if err != nil {
		return nil, fail("%s: %v", e.prim.Name, err)
	}
	return func(x []byte) error {
		ctx, in := fixedCtx, x
		if byKey {
			if ctx, err = e.newKey(x); err != nil {
				return err
			}
			in = msg
		}
		xf, err := e.start(ctx, iv, true)
		if err == nil {
			xf(out, in)
		}
		return err
	}, nil
}
