// cipherbench Go runner: speaks protocol v1 (docs/protocol.md) on stdin/stdout.
// Implementations and the canonical-name table are in impls.go; this file is
// the protocol loop, length checks and the timed loops.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// prim is one registry record, read from registry.json (written by build.sh
// from registry/primitives.toml, so the lengths come from the one registry).
type prim struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	KeyBytes    int    `json:"key_bytes"`
	BlockBytes  int    `json:"block_bytes"`
	IVBytes     int    `json:"iv_bytes"`
	TagBytes    int    `json:"tag_bytes"`
	DigestBytes int    `json:"digest_bytes"`
	WholeBlocks bool   `json:"whole_blocks"`
}

type failErr struct{ msg string }        // answered as status "error"
type unsupportedErr struct{ msg string } // answered as status "unsupported"

func (e failErr) Error() string        { return e.msg }
func (e unsupportedErr) Error() string { return e.msg }

func fail(format string, a ...any) error        { return failErr{fmt.Sprintf(format, a...)} }
func unsupported(format string, a ...any) error { return unsupportedErr{fmt.Sprintf(format, a...)} }

var registry = map[string]*prim{}
var registryOrder []*prim

func loadRegistry() error {
	path := os.Getenv("CB_REGISTRY")
	if len(os.Args) > 2 && os.Args[1] == "--registry" {
		path = os.Args[2]
	}
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		path = filepath.Join(filepath.Dir(exe), "registry.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var list []*prim
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	for _, p := range list {
		registry[p.Name] = p
	}
	registryOrder = list
	return nil
}

// ------------------------------------------------------------------ request fields

type request map[string]any

func (r request) str(field string) (string, error) {
	v, ok := r[field]
	if !ok {
		return "", fail("missing field '%s'", field)
	}
	s, ok := v.(string)
	if !ok {
		return "", fail("field '%s' must be a string", field)
	}
	return s, nil
}

func (r request) count(field string, dflt uint64, required bool) (uint64, error) {
	v, ok := r[field]
	if !ok {
		if required {
			return 0, fail("missing field '%s'", field)
		}
		return dflt, nil
	}
	n, ok := v.(json.Number)
	if ok {
		if u, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
			return u, nil
		}
	}
	return 0, fail("field '%s' must be a non-negative integer", field)
}

// keyIVAAD reads the optional key, iv and aad fields and checks their lengths against p.
func (r request) keyIVAAD(p *prim) (key, iv, aad []byte, err error) {
	if key, err = r.hex("key", false); err != nil {
		return
	}
	if iv, err = r.hex("iv", false); err != nil {
		return
	}
	if aad, err = r.hex("aad", false); err != nil {
		return
	}
	err = checkLengths(p, key, iv, aad)
	return
}

func (r request) hex(field string, required bool) ([]byte, error) {
	v, ok := r[field]
	if !ok || v == nil {
		if required {
			return nil, fail("missing field '%s'", field)
		}
		return []byte{}, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fail("field '%s' must be a hex string", field)
	}
	if len(s)%2 != 0 {
		return nil, fail("field '%s' has an odd number of hex digits", field)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fail("field '%s' is not hex", field)
	}
	return b, nil
}

// ------------------------------------------------------------------ dispatch

func handle(req request) (map[string]any, error) {
	op, err := req.str("op")
	if err != nil {
		return nil, err
	}
	switch op {
	case "hello":
		return hello(), nil
	case "encrypt", "decrypt":
		return crypt(req, op == "encrypt")
	case "hash":
		return hashOnce(req)
	case "bench":
		return bench(req)
	case "cpu-clock":
		return nil, unsupported("the Go runner has no cpu-clock (no cycle-exact dependent-add chain in Go)")
	}
	return nil, fail("unknown op '%s'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, quit", op)
}

func hello() map[string]any {
	impls := []any{}
	for _, im := range implementations {
		prims := []any{}
		for _, e := range im.entries {
			prims = append(prims, map[string]any{"name": e.prim.Name, "provider": e.provider})
		}
		j := map[string]any{"name": im.name, "library": im.library, "version": im.version,
			"available": true, "primitives": prims}
		if len(im.notes) > 0 {
			j["notes"] = im.notes
		}
		if len(im.problems) > 0 {
			j["problems"] = im.problems
		}
		impls = append(impls, j)
	}
	return map[string]any{"status": "ok", "protocol": 1, "runner": "go", "language": "Go", "jit": false,
		"runtime": runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		"clocks": map[string]any{"monotonic": "time.Now / time.Since (Go monotonic clock, CLOCK_MONOTONIC)",
			"tsc": nil, "core_cycles": nil},
		"implementations": impls}
}

func target(req request) (*entry, error) {
	iname, err := req.str("impl")
	if err != nil {
		return nil, err
	}
	pname, err := req.str("primitive")
	if err != nil {
		return nil, err
	}
	if registry[pname] == nil {
		return nil, fail("unknown primitive '%s' (not in the registry)", pname)
	}
	for _, im := range implementations {
		if im.name != iname {
			continue
		}
		for _, e := range im.entries {
			if e.prim.Name == pname {
				return e, nil
			}
		}
		return nil, unsupported("%s does not offer %s", iname, pname)
	}
	return nil, fail("unknown implementation '%s'", iname)
}

func checkLengths(p *prim, key, iv, aad []byte) error {
	if len(key) != p.KeyBytes {
		return fail("%s takes a %d-byte key, got %d", p.Name, p.KeyBytes, len(key))
	}
	if len(iv) != p.IVBytes {
		return fail("%s takes a %d-byte IV/nonce, got %d", p.Name, p.IVBytes, len(iv))
	}
	if len(aad) != 0 && p.Kind != "aead" {
		return fail("%s is not an AEAD and takes no associated data", p.Name)
	}
	return nil
}

func checkInput(p *prim, n int) error {
	if p.WholeBlocks && n%p.BlockBytes != 0 {
		return fail("%s takes whole %d-byte blocks (no padding), got %d bytes", p.Name, p.BlockBytes, n)
	}
	return nil
}

// chunkParts reads the optional "chunks" field: the lengths of consecutive
// update calls, plus one more call for the rest of the n-byte input.
func chunkParts(req request, p *prim, n int) ([]int, bool, error) {
	v, ok := req["chunks"]
	if !ok || v == nil {
		if n > 0 {
			return []int{n}, false, nil
		}
		return nil, false, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, true, fail("field 'chunks' must be a list of byte counts")
	}
	var parts []int
	sum := 0
	for _, x := range list {
		num, ok := x.(json.Number)
		l, err := strconv.ParseUint(string(num), 10, 62)
		if !ok || err != nil || l == 0 {
			return nil, true, fail("field 'chunks' must hold positive byte counts")
		}
		if p.WholeBlocks && int(l)%p.BlockBytes != 0 {
			return nil, true, fail("%s takes whole %d-byte blocks: chunk of %d bytes", p.Name, p.BlockBytes, l)
		}
		if l > uint64(n-sum) {
			return nil, true, fail("chunks add up to more than the %d-byte input", n)
		}
		sum += int(l)
		parts = append(parts, int(l))
	}
	if sum < n {
		parts = append(parts, n-sum)
	}
	return parts, true, nil
}

func crypt(req request, enc bool) (map[string]any, error) {
	e, err := target(req)
	if err != nil {
		return nil, err
	}
	p := e.prim
	if p.Kind == "hash" {
		return nil, fail("%s is a hash: use op 'hash'", p.Name)
	}
	if req["inplace"] == true {
		return nil, unsupported("this runner does not offer in-place operation ('inplace')")
	}
	key, iv, aad, err := req.keyIVAAD(p)
	if err != nil {
		return nil, err
	}
	in, err := req.hex("input", true)
	if err != nil {
		return nil, err
	}
	if p.Kind == "aead" {
		if !enc && len(in) < p.TagBytes {
			return nil, fail("%s decryption input must end with the %d-byte tag", p.Name, p.TagBytes)
		}
		n := len(in)
		if !enc {
			n -= p.TagBytes
		}
		parts, chunked, err := chunkParts(req, p, n)
		if err != nil {
			return nil, err
		}
		if len(parts) > 1 {
			return nil, unsupported("%s is one call per message in %s (cipher.AEAD is one-shot): it cannot take the input in chunks", p.Name, e.impl)
		}
		a, err := e.newAEAD(key)
		if err != nil {
			return nil, fail("%s: %v", p.Name, err)
		}
		r := map[string]any{"status": "ok"}
		if chunked {
			r["chunked"] = true
		}
		if enc {
			r["output"] = hex.EncodeToString(a.Seal(nil, iv, in, aad))
			return r, nil
		}
		out, err := a.Open(nil, iv, in, aad)
		r["authentic"] = err == nil
		if err == nil {
			r["output"] = hex.EncodeToString(out)
		}
		return r, nil
	}
	if err := checkInput(p, len(in)); err != nil {
		return nil, err
	}
	parts, chunked, err := chunkParts(req, p, len(in))
	if err != nil {
		return nil, err
	}
	if len(parts) > 1 && e.oneShot != "" {
		return nil, unsupported("%s: %s, so it cannot take the input in chunks", p.Name, e.oneShot)
	}
	ctx, err := e.newKey(key)
	if err != nil {
		return nil, fail("%s: %v", p.Name, err)
	}
	xf, err := e.start(ctx, iv, enc)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(in))
	at := 0
	for _, l := range parts {
		xf(out[at:at+l], in[at:at+l])
		at += l
	}
	r := map[string]any{"status": "ok", "output": hex.EncodeToString(out)}
	if chunked {
		r["chunked"] = true
	}
	return r, nil
}

func hashOnce(req request) (map[string]any, error) {
	e, err := target(req)
	if err != nil {
		return nil, err
	}
	p := e.prim
	if p.Kind != "hash" {
		return nil, fail("%s is not a hash: use encrypt/decrypt", p.Name)
	}
	in, err := req.hex("input", true)
	if err != nil {
		return nil, err
	}
	h := e.newHash()
	h.Write(in)
	return map[string]any{"status": "ok", "output": hex.EncodeToString(h.Final(nil))}, nil
}

// ------------------------------------------------------------------ timed batches

func bump(iv []byte) { // next nonce: big-endian increment
	for j := len(iv) - 1; j >= 0; j-- {
		iv[j]++
		if iv[j] != 0 {
			break
		}
	}
}

func timed(body func()) int64 {
	t0 := time.Now()
	body()
	return int64(time.Since(t0))
}

func bench(req request) (map[string]any, error) {
	e, err := target(req)
	if err != nil {
		return nil, err
	}
	p := e.prim
	op, err := req.str("operation")
	if err != nil {
		return nil, err
	}
	workload := "bulk"
	if _, ok := req["workload"]; ok {
		if workload, err = req.str("workload"); err != nil {
			return nil, err
		}
	}
	size64, err := req.count("size", 0, op != "keysetup" && op != "keysetup-decrypt")
	if err != nil {
		return nil, err
	}
	loops, err := req.count("loops", 0, true)
	if err != nil {
		return nil, err
	}
	batches, err := req.count("batches", 1, false)
	if err != nil {
		return nil, err
	}
	if loops == 0 || batches == 0 {
		return nil, fail("loops and batches must be at least 1")
	}
	if batches > 100000 {
		return nil, fail("at most 100000 batches per request")
	}
	if size64 > 1<<30 {
		return nil, fail("size is limited to 1 GiB")
	}
	if workload != "bulk" && workload != "message" && workload != "rekey" {
		return nil, fail("unknown workload '%s'; accepted: bulk, message, rekey", workload)
	}
	size := int(size64)
	// Deterministic buffer: byte i = i mod 256; room for an AEAD tag after it.
	buf := make([]byte, size+64)
	for i := range buf {
		buf[i] = byte(i)
	}
	out := make([]byte, size+64)
	ns := make([]int64, 0, batches)

	if p.Kind == "hash" {
		if op != "hash" {
			return nil, fail("%s is a hash: operation must be 'hash'", p.Name)
		}
		if workload == "rekey" {
			return nil, fail("hashes have no key: use workload bulk or message")
		}
		h := e.newHash()
		data := buf[:size]
		var d []byte
		for b := uint64(0); b < batches; b++ {
			if workload == "bulk" {
				h.Reset()
				ns = append(ns, timed(func() {
					for i := uint64(0); i < loops; i++ {
						h.Write(data)
					}
				}))
				d = h.Final(d[:0])
			} else {
				ns = append(ns, timed(func() {
					for i := uint64(0); i < loops; i++ {
						h.Reset()
						h.Write(data)
						d = h.Final(d[:0])
					}
				}))
			}
		}
		return result(ns), nil
	}

	key, iv, aad, err := req.keyIVAAD(p)
	if err != nil {
		return nil, err
	}
	aead := p.Kind == "aead"
	if op == "keysetup" || op == "keysetup-decrypt" {
		if aead {
			for b := uint64(0); b < batches; b++ {
				ns = append(ns, timed(func() {
					for i := uint64(0); i < loops; i++ {
						e.newAEAD(key)
					}
				}))
			}
			return result(ns), nil
		}
		if e.noKeySetup != "" {
			return nil, unsupported("%s", e.noKeySetup)
		}
		if _, err := e.newKey(key); err != nil {
			return nil, fail("%s: %v", p.Name, err)
		}
		for b := uint64(0); b < batches; b++ {
			ns = append(ns, timed(func() {
				for i := uint64(0); i < loops; i++ {
					e.newKey(key)
				}
			}))
		}
		return result(ns), nil
	}
	if err := checkInput(p, size); err != nil {
		return nil, err
	}
	if op != "encrypt" && op != "decrypt" && op != "decrypt-forged" {
		return nil, fail("unknown operation '%s'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash", op)
	}
	forged := op == "decrypt-forged"
	if forged && !aead {
		return nil, fail("decrypt-forged applies to AEADs only")
	}
	rekey := workload == "rekey"

	if aead {
		a, err := e.newAEAD(key)
		if err != nil {
			return nil, fail("%s: %v", p.Name, err)
		}
		data := buf[:size]
		if op == "encrypt" {
			// Go's cipher.AEAD is one-shot: in the bulk workload every call
			// is a whole Seal under the same nonce (see README).
			for b := uint64(0); b < batches; b++ {
				ns = append(ns, timed(func() {
					for i := uint64(0); i < loops; i++ {
						if rekey {
							a, _ = e.newAEAD(key)
						}
						a.Seal(data[:0], iv, data, aad)
						if workload != "bulk" {
							bump(iv)
						}
					}
				}))
			}
			return result(ns), nil
		}
		// A valid ciphertext and tag to open, made once outside the timing.
		ct := a.Seal(buf[:0], iv, data, aad)
		if forged {
			ct[size] ^= 1
		}
		var accepted uint64
		for b := uint64(0); b < batches; b++ {
			ns = append(ns, timed(func() {
				for i := uint64(0); i < loops; i++ {
					if rekey {
						a, _ = e.newAEAD(key)
					}
					if _, err := a.Open(out[:0], iv, ct, aad); err == nil {
						accepted++
					}
				}
			}))
		}
		expect := loops * batches
		if forged {
			expect = 0
		}
		if accepted != expect {
			what := " valid messages were accepted"
			if forged {
				what = " forged messages were accepted"
			}
			return nil, fail("%s: %d of %d%s", p.Name, accepted, loops*batches, what)
		}
		return result(ns), nil
	}

	enc := op == "encrypt"
	ctx, err := e.newKey(key)
	if err != nil {
		return nil, fail("%s: %v", p.Name, err)
	}
	if _, err := e.start(ctx, iv, enc); err != nil {
		return nil, err
	}
	data := buf[:size]
	for b := uint64(0); b < batches; b++ {
		if workload == "bulk" {
			xf, _ := e.start(ctx, iv, enc)
			ns = append(ns, timed(func() {
				for i := uint64(0); i < loops; i++ {
					xf(data, data)
				}
			}))
		} else {
			dst := out[:size]
			if enc {
				dst = data
			}
			ns = append(ns, timed(func() {
				for i := uint64(0); i < loops; i++ {
					c := ctx
					if rekey {
						c, _ = e.newKey(key)
					}
					xf, _ := e.start(c, iv, enc)
					xf(dst, data)
					if enc {
						bump(iv)
					}
				}
			}))
		}
	}
	return result(ns), nil
}

func result(ns []int64) map[string]any {
	return map[string]any{"status": "ok", "ns": ns, "tsc": nil, "core_cycles": nil}
}

// ------------------------------------------------------------------ main loop

func respond(w *bufio.Writer, resp map[string]any, id any) {
	resp["id"] = id
	line, err := json.Marshal(resp)
	if err != nil {
		line, _ = json.Marshal(map[string]any{"status": "error", "id": nil,
			"message": "could not encode the response: " + err.Error()})
	}
	w.Write(line)
	w.WriteByte('\n')
	w.Flush()
}

func serve(line []byte) (resp map[string]any, id any, quit bool) {
	defer func() {
		if r := recover(); r != nil {
			resp = map[string]any{"status": "error", "message": fmt.Sprintf("internal error: %v", r)}
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return map[string]any{"status": "error", "message": "malformed request: not JSON (" + err.Error() + ")"}, nil, false
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		return map[string]any{"status": "error", "message": "malformed request: not JSON (trailing data after the object)"}, nil, false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return map[string]any{"status": "error", "message": "a request must be a JSON object"}, nil, false
	}
	id = obj["id"]
	if op, _ := obj["op"].(string); op == "quit" {
		return nil, id, true
	}
	resp, err := handle(request(obj))
	if err != nil {
		var u unsupportedErr
		if errors.As(err, &u) {
			return map[string]any{"status": "unsupported", "message": u.msg}, id, false
		}
		return map[string]any{"status": "error", "message": err.Error()}, id, false
	}
	return resp, id, false
}

func main() {
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	regErr := loadRegistry()
	if regErr != nil {
		fmt.Fprintln(os.Stderr, "go runner: cannot read the registry:", regErr)
	} else {
		buildImplementations()
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if regErr != nil {
				respond(out, map[string]any{"status": "error",
					"message": "the runner cannot read the registry (run runners/go/build.sh): " + regErr.Error()}, nil)
			} else {
				resp, id, quit := serve(line)
				if quit {
					return
				}
				respond(out, resp, id)
			}
		}
		if err != nil {
			return
		}
	}
}
