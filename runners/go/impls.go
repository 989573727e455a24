// The Go runner's implementations: the one table mapping canonical registry
// names to Go packages (blockCiphers, streams, aeads, hashes below), and what
// runs underneath each (provider strings from the CPU features Go itself checks).
package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"hash"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
	"golang.org/x/crypto/blowfish"
	"golang.org/x/crypto/cast5"
	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/md4"
	"golang.org/x/crypto/ripemd160"
	"golang.org/x/crypto/salsa20"
	xsha3 "golang.org/x/crypto/sha3"
	"golang.org/x/crypto/tea"
	"golang.org/x/crypto/twofish"
	"golang.org/x/crypto/xtea"
	"golang.org/x/sys/cpu"
)

type xform func(dst, src []byte)

type hasher interface {
	Write([]byte) (int, error)
	Reset()
	Final(b []byte) []byte
}

// entry: one primitive of one implementation.
//   - block modes and streams: newKey (key setup, the reusable context) and
//     start (per-message init with the IV, returning the transform);
//   - AEADs: newAEAD (key setup; Seal/Open are one-shot);
//   - hashes: newHash.
type entry struct {
	prim       *prim
	provider   string
	features   []string // the code path as data (docs/protocol.md, features); nil: unknown
	newKey     func(key []byte) (any, error)
	start      func(ctx any, iv []byte, enc bool) (xform, error)
	noKeySetup string // non-empty: keysetup is answered unsupported with this reason
	oneShot    string // non-empty: the API cannot continue a message across calls (why)
	impl       string
	newAEAD    func(key []byte) (cipher.AEAD, error)
	newHash    func() hasher
}

type impl struct {
	name, library, version string
	notes                  map[string]any
	problems               []string
	entries                []*entry
}

var implementations []*impl

// ------------------------------------------------------------------ name table

const (
	std    = "go-std"
	xcrypt = "go-xcrypto"
)

type blockCipher struct {
	impl     string // which implementation offers the cipher in its plain modes
	newBlock func(key []byte) (cipher.Block, error)
	pure     bool // the package is Go alone (every platform); false: AES, told by aesPath
}

// Block ciphers: registry family -> Go package. Modes come from the registry
// (ecb, cbc, cfb, ofb, ctr for all; gcm and xts where noted in buildImplementations).
var blockCiphers = map[string]blockCipher{
	"aes": {std, aes.NewCipher, false},
	"des": {std, des.NewCipher, true},
	"3des": {std, func(k []byte) (cipher.Block, error) {
		if len(k) == 16 { // two-key EDE: K1, K2, K1
			k = append(append([]byte{}, k...), k[:8]...)
		}
		return des.NewTripleDESCipher(k)
	}, true},
	"blowfish": {xcrypt, func(k []byte) (cipher.Block, error) { return blowfish.NewCipher(k) }, true},
	"cast5":    {xcrypt, func(k []byte) (cipher.Block, error) { return cast5.NewCipher(k) }, true},
	"twofish":  {xcrypt, func(k []byte) (cipher.Block, error) { return twofish.NewCipher(k) }, true},
	"xtea":     {xcrypt, func(k []byte) (cipher.Block, error) { return xtea.NewCipher(k) }, true},
	"tea":      {xcrypt, tea.NewCipher, true},
}

var plainModes = map[string]bool{"ecb": true, "cbc": true, "cfb": true, "ofb": true, "ctr": true}

func hashEntry(newH func() hash.Hash) func() hasher {
	return func() hasher { return hh{newH()} }
}

type hh struct{ hash.Hash }

func (h hh) Final(b []byte) []byte { return h.Sum(b) }

type shake struct {
	*sha3.SHAKE
	n int
}

func (s shake) Final(b []byte) []byte {
	out := make([]byte, s.n)
	s.Read(out)
	return append(b, out...)
}

type hashDef struct {
	impl    string
	newHash func() hasher
	kind    hashCode // which code runs: Go alone, amd64 assembly, or chosen from the CPU (hashPath)
}

type hashCode int

const (
	pureGoHash hashCode = iota // Go alone, on every platform
	keccakAsm                  // Keccak-f in amd64 assembly on amd64, Go elsewhere
	md5Asm                     // amd64 assembly on amd64
	dispatched                 // chosen from the CPU by Go: hashPath
)

func must(h hash.Hash, err error) hash.Hash {
	if err != nil {
		panic(err)
	}
	return h
}

var hashes = map[string]hashDef{
	"md5":         {std, hashEntry(md5.New), md5Asm},
	"sha-1":       {std, hashEntry(sha1.New), dispatched},
	"sha-224":     {std, hashEntry(sha256.New224), dispatched},
	"sha-256":     {std, hashEntry(sha256.New), dispatched},
	"sha-384":     {std, hashEntry(sha512.New384), dispatched},
	"sha-512":     {std, hashEntry(sha512.New), dispatched},
	"sha-512-256": {std, hashEntry(sha512.New512_256), dispatched},
	"sha-512-224": {std, hashEntry(sha512.New512_224), dispatched},
	"keccak-256":  {xcrypt, hashEntry(xsha3.NewLegacyKeccak256), keccakAsm},
	"keccak-512":  {xcrypt, hashEntry(xsha3.NewLegacyKeccak512), keccakAsm},
	"sha3-224":    {std, hashEntry(func() hash.Hash { return sha3.New224() }), keccakAsm},
	"sha3-256":    {std, hashEntry(func() hash.Hash { return sha3.New256() }), keccakAsm},
	"sha3-384":    {std, hashEntry(func() hash.Hash { return sha3.New384() }), keccakAsm},
	"sha3-512":    {std, hashEntry(func() hash.Hash { return sha3.New512() }), keccakAsm},
	"shake128":    {std, func() hasher { return shake{sha3.NewSHAKE128(), 32} }, keccakAsm},
	"shake256":    {std, func() hasher { return shake{sha3.NewSHAKE256(), 64} }, keccakAsm},
	"md4":         {xcrypt, hashEntry(md4.New), pureGoHash},
	"ripemd-160":  {xcrypt, hashEntry(ripemd160.New), pureGoHash},
	"blake2b-512": {xcrypt, hashEntry(func() hash.Hash { return must(blake2b.New512(nil)) }), dispatched},
	"blake2b-256": {xcrypt, hashEntry(func() hash.Hash { return must(blake2b.New256(nil)) }), dispatched},
	"blake2s-256": {xcrypt, hashEntry(func() hash.Hash { return must(blake2s.New256(nil)) }), dispatched},
}

// ------------------------------------------------------------------ code paths
// Each path in words, for people, and its features (docs/protocol.md, features), both from
// the CPU checks Go's own packages make on amd64. Off amd64 the runner does not follow
// Go's choices: a path that is not Go alone is then unknown (nil features).

type path struct {
	words    string
	features []string
}

var portable = []string{"portable"}

func pureGo(words string) path { return path{words, portable} }

func amd64() bool { return runtime.GOARCH == "amd64" }

func onAmd64(words string, features ...string) path {
	if !amd64() {
		return path{"Go, or its assembly for " + runtime.GOARCH, nil}
	}
	return path{words, features}
}

func aesPath(mode string) path {
	if !amd64() {
		return path{"Go's AES for " + runtime.GOARCH, nil}
	}
	if !cpu.X86.HasAES {
		return pureGo("constant-time pure Go (no AES-NI)")
	}
	switch mode {
	case "gcm":
		if cpu.X86.HasPCLMULQDQ {
			return path{"AES-NI + PCLMULQDQ (Go assembly)", []string{"aes-ni", "pclmul"}}
		}
	case "ctr":
		return path{"AES-NI (Go assembly, 8 blocks at a time)", []string{"aes-ni"}}
	}
	return path{"AES-NI (Go assembly, one block per call)", []string{"aes-ni"}}
}

func hashPath(name string) path {
	if !amd64() {
		return path{"Go, or its assembly for " + runtime.GOARCH, nil}
	}
	switch name {
	case "sha-1", "sha-224", "sha-256":
		if cpu.X86.HasAVX && hasSHANI() && cpu.X86.HasSSE41 && cpu.X86.HasSSSE3 {
			return path{"SHA-NI (Go assembly)", []string{"sha-ni"}}
		}
		if cpu.X86.HasAVX2 && cpu.X86.HasBMI2 {
			return path{"AVX2 + BMI2 (Go assembly)", []string{"avx2", "bmi2"}}
		}
		return path{"amd64 assembly", []string{"asm"}}
	case "sha-384", "sha-512", "sha-512-256", "sha-512-224":
		if cpu.X86.HasAVX2 && cpu.X86.HasBMI2 {
			return path{"AVX2 + BMI2 (Go assembly)", []string{"avx2", "bmi2"}}
		}
		return path{"amd64 assembly", []string{"asm"}}
	case "blake2b-512", "blake2b-256":
		switch {
		case cpu.X86.HasAVX2:
			return path{"AVX2 (Go assembly)", []string{"avx2"}}
		case cpu.X86.HasAVX:
			return path{"AVX (Go assembly)", []string{"avx"}}
		case cpu.X86.HasSSE41:
			return path{"SSE4.1 (Go assembly)", []string{"sse4.1"}}
		}
		return pureGo("pure Go")
	case "blake2s-256":
		switch {
		case cpu.X86.HasSSE41:
			return path{"SSE4.1 (Go assembly)", []string{"sse4.1"}}
		case cpu.X86.HasSSSE3:
			return path{"SSSE3 (Go assembly)", []string{"ssse3"}}
		}
		return path{"SSE2 (Go assembly)", []string{"sse2"}}
	}
	return path{"Go", nil}
}

func chachaPolyPath() path {
	if !amd64() {
		return path{"Go, or its assembly for " + runtime.GOARCH, nil}
	}
	// x/crypto's chacha20poly1305_amd64.go: its assembly needs SSSE3 and takes the AVX2 body
	// where the CPU also has AVX2 and BMI2
	switch {
	case cpu.X86.HasSSSE3 && cpu.X86.HasAVX2 && cpu.X86.HasBMI2:
		return path{"AVX2 + BMI2 (Go assembly)", []string{"avx2", "bmi2"}}
	case cpu.X86.HasSSSE3:
		return path{"SSSE3 (Go assembly)", []string{"ssse3"}}
	}
	return pureGo("pure Go")
}

func hashDefPath(name string, h hashDef) path {
	switch h.kind {
	case pureGoHash:
		return pureGo("pure Go")
	case md5Asm:
		return onAmd64("amd64 assembly", "asm")
	case keccakAsm:
		p := onAmd64("amd64 assembly (Keccak-f)", "asm")
		if h.impl == xcrypt {
			p.words += ", original 0x01 padding"
		}
		return p
	}
	return hashPath(name)
}

// ------------------------------------------------------------------ modes

func blockStart(mode string) func(ctx any, iv []byte, enc bool) (xform, error) {
	return func(ctx any, iv []byte, enc bool) (xform, error) {
		b := ctx.(cipher.Block)
		switch mode {
		case "ecb": // Go has no ECB API: one Block call per block
			bs := b.BlockSize()
			if enc {
				return func(dst, src []byte) {
					for i := 0; i+bs <= len(src); i += bs {
						b.Encrypt(dst[i:i+bs], src[i:i+bs])
					}
				}, nil
			}
			return func(dst, src []byte) {
				for i := 0; i+bs <= len(src); i += bs {
					b.Decrypt(dst[i:i+bs], src[i:i+bs])
				}
			}, nil
		case "cbc":
			if enc {
				return cipher.NewCBCEncrypter(b, iv).CryptBlocks, nil
			}
			return cipher.NewCBCDecrypter(b, iv).CryptBlocks, nil
		case "cfb": // full-block feedback
			if enc {
				return cipher.NewCFBEncrypter(b, iv).XORKeyStream, nil //nolint:staticcheck // deprecated, still the std CFB
			}
			return cipher.NewCFBDecrypter(b, iv).XORKeyStream, nil //nolint:staticcheck
		case "ofb":
			return cipher.NewOFB(b, iv).XORKeyStream, nil //nolint:staticcheck
		case "ctr": // the whole IV block is one big-endian counter
			return cipher.NewCTR(b, iv).XORKeyStream, nil
		}
		panic("unknown mode " + mode)
	}
}

func keyCopy(key []byte) (any, error) { return append([]byte{}, key...), nil }

// ------------------------------------------------------------------ assembly

func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

func buildImplementations() {
	goStd := &impl{name: std, library: "Go standard library", version: runtime.Version(),
		notes: map[string]any{"fips140": "Go's crypto/internal/fips140 module (not in FIPS mode)",
			"cpu": cpuFlags()}}
	xc := &impl{name: xcrypt, library: "golang.org/x/crypto", version: moduleVersion("golang.org/x/crypto"),
		notes: map[string]any{"modes": "ECB/CBC/CFB/OFB/CTR/GCM from Go's crypto/cipher over x/crypto block ciphers",
			"go": runtime.Version()}}
	byName := map[string]*impl{std: goStd, xcrypt: xc}
	add := func(im string, e *entry) { e.impl = im; byName[im].entries = append(byName[im].entries, e) }

	for _, p := range registryOrder {
		fam, mode := family(p)
		switch p.Kind {
		case "cipher", "aead":
			bc, ok := blockCiphers[fam]
			if !ok {
				break
			}
			prov := pureGo("pure Go")
			if !bc.pure {
				prov = aesPath(mode)
			}
			newKey := func(k []byte) (any, error) { return bc.newBlock(k) }
			switch {
			case plainModes[mode]:
				add(bc.impl, &entry{prim: p, provider: prov.words, features: prov.features, newKey: newKey, start: blockStart(mode)})
			case mode == "gcm" && (fam == "aes" || fam == "twofish"):
				if fam == "twofish" {
					prov = pureGo("crypto/cipher generic GCM (pure Go) over x/crypto/twofish")
				}
				add(bc.impl, &entry{prim: p, provider: prov.words, features: prov.features, newAEAD: func(k []byte) (cipher.AEAD, error) {
					b, err := bc.newBlock(k)
					if err != nil {
						return nil, err
					}
					return cipher.NewGCM(b)
				}})
			}
		case "stream":
			switch p.Name {
			case "chacha20", "xchacha20":
				add(xcrypt, &entry{prim: p, provider: "pure Go (x/crypto/chacha20 has no amd64 assembly)",
					features: portable, newKey: keyCopy,
					start: func(ctx any, iv []byte, enc bool) (xform, error) {
						c, err := chacha20.NewUnauthenticatedCipher(ctx.([]byte), iv)
						if err != nil {
							return nil, fail("%v", err)
						}
						return c.XORKeyStream, nil
					},
					noKeySetup: "x/crypto/chacha20 sets key and nonce together (NewUnauthenticatedCipher); the message workload times it"})
			case "salsa20", "xsalsa20":
				prov := onAmd64("amd64 assembly (Salsa20 core)", "asm")
				if p.Name == "xsalsa20" {
					prov.words = "HSalsa20 in Go + " + prov.words
				}
				add(xcrypt, &entry{prim: p, provider: prov.words + "; each call is one XORKeyStream from counter 0",
					features: prov.features,
					newKey:   func(k []byte) (any, error) { var a [32]byte; copy(a[:], k); return &a, nil },
					start: func(ctx any, iv []byte, enc bool) (xform, error) {
						k, nonce := ctx.(*[32]byte), append([]byte{}, iv...)
						return func(dst, src []byte) { salsa20.XORKeyStream(dst, src, nonce, k) }, nil
					},
					noKeySetup: "x/crypto/salsa20 has no key setup step: the key is passed to every XORKeyStream call",
					oneShot:    "x/crypto/salsa20.XORKeyStream keeps no stream state between calls"})
			case "rc4":
				add(std, &entry{prim: p, provider: "pure Go", features: portable,
					newKey: func(k []byte) (any, error) { return rc4.NewCipher(k) },
					start: func(ctx any, iv []byte, enc bool) (xform, error) {
						c := *ctx.(*rc4.Cipher) // a fresh copy of the keyed state per message
						return c.XORKeyStream, nil
					}})
			}
		}
		switch p.Name {
		case "chacha20-poly1305":
			cp := chachaPolyPath()
			add(xcrypt, &entry{prim: p, provider: cp.words, features: cp.features, newAEAD: chacha20poly1305.New})
		case "xchacha20-poly1305":
			cp := chachaPolyPath()
			add(xcrypt, &entry{prim: p, provider: "HChaCha20 in Go + " + cp.words, features: cp.features,
				newAEAD: chacha20poly1305.NewX})
		}
		if p.Kind == "hash" {
			if h, ok := hashes[p.Name]; ok {
				hp := hashDefPath(p.Name, h)
				add(h.impl, &entry{prim: p, provider: hp.words, features: hp.features, newHash: h.newHash})
			}
		}
	}
	implementations = []*impl{goStd, xc}
}

// family splits a registry name into its cipher id and mode ("aes-128-cbc" -> "aes", "cbc").
func family(p *prim) (string, string) {
	parts := strings.Split(p.Name, "-")
	if (p.Kind == "cipher" || p.Kind == "aead") && len(parts) == 3 {
		return parts[0], parts[2]
	}
	return p.Name, ""
}

// hasSHANI: x/sys/cpu has no SHA flag, so read the kernel's (Go's own check is CPUID leaf 7 EBX bit 29).
func hasSHANI() bool {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "flags") {
			return strings.Contains(" "+line+" ", " sha_ni ")
		}
	}
	return false
}

func cpuFlags() string {
	var f []string
	for _, x := range []struct {
		n string
		b bool
	}{{"aes", cpu.X86.HasAES}, {"pclmulqdq", cpu.X86.HasPCLMULQDQ}, {"avx2", cpu.X86.HasAVX2},
		{"sha", hasSHANI()}, {"bmi2", cpu.X86.HasBMI2}, {"avx512f", cpu.X86.HasAVX512F}} {
		if x.b {
			f = append(f, x.n)
		}
	}
	return strings.Join(f, " ")
}
