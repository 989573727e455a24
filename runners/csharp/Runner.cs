// cipherbench runner for C# on Mono (protocol v1, docs/protocol.md): JSON lines on
// stdin/stdout. One implementation, "mono": the System.Security.Cryptography classes
// of the Mono class library (managed code). args[0] = the registry expanded to JSON
// by build.sh.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;

class Fail : Exception { public Fail(string m) : base(m) { } }
class Unsupported : Exception { public Unsupported(string m) : base(m) { } }

// ---------------------------------------------------------------- a small JSON reader
class J {
    public char Kind;  // o(bject) a(rray) s(tring) n(umber) b(ool) z (null)
    public string Str, Raw;  // Raw = the value's source text (echoed for "id")
    public bool Bool;
    public List<J> Arr;
    public Dictionary<string, J> Obj;

    public static J Parse(string s) {
        int i = 0;
        J v = Value(s, ref i, 0);
        Ws(s, ref i);
        if (i != s.Length) throw new FormatException("trailing characters at offset " + i);
        return v;
    }
    static void Ws(string s, ref int i) { while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++; }
    static J Value(string s, ref int i, int depth) {
        if (depth > 512) throw new FormatException("nesting too deep");
        Ws(s, ref i);
        if (i >= s.Length) throw new FormatException("unexpected end of input");
        int start = i;
        J v = new J();
        char c = s[i];
        if (c == '{') {
            v.Kind = 'o'; v.Obj = new Dictionary<string, J>(); i++; Ws(s, ref i);
            if (i < s.Length && s[i] == '}') i++;
            else for (;;) {
                Ws(s, ref i);
                if (i >= s.Length || s[i] != '"') throw new FormatException("expected a string key at offset " + i);
                string k = Str_(s, ref i); Ws(s, ref i);
                if (i >= s.Length || s[i] != ':') throw new FormatException("expected ':' at offset " + i);
                i++; v.Obj[k] = Value(s, ref i, depth + 1); Ws(s, ref i);
                if (i < s.Length && s[i] == ',') { i++; continue; }
                if (i < s.Length && s[i] == '}') { i++; break; }
                throw new FormatException("expected ',' or '}' at offset " + i);
            }
        } else if (c == '[') {
            v.Kind = 'a'; v.Arr = new List<J>(); i++; Ws(s, ref i);
            if (i < s.Length && s[i] == ']') i++;
            else for (;;) {
                v.Arr.Add(Value(s, ref i, depth + 1)); Ws(s, ref i);
                if (i < s.Length && s[i] == ',') { i++; continue; }
                if (i < s.Length && s[i] == ']') { i++; break; }
                throw new FormatException("expected ',' or ']' at offset " + i);
            }
        } else if (c == '"') { v.Kind = 's'; v.Str = Str_(s, ref i); }
        else if (Lit(s, ref i, "true")) { v.Kind = 'b'; v.Bool = true; }
        else if (Lit(s, ref i, "false")) { v.Kind = 'b'; }
        else if (Lit(s, ref i, "null")) { v.Kind = 'z'; }
        else if (c == '-' || (c >= '0' && c <= '9')) {
            v.Kind = 'n';
            if (s[i] == '-') i++;
            int d0 = i;
            while (i < s.Length && char.IsDigit(s[i])) i++;
            if (i == d0 || (s[d0] == '0' && i - d0 > 1)) throw new FormatException("bad number at offset " + start);
            if (i < s.Length && s[i] == '.') { i++; int f0 = i; while (i < s.Length && char.IsDigit(s[i])) i++; if (i == f0) throw new FormatException("bad number at offset " + start); }
            if (i < s.Length && (s[i] == 'e' || s[i] == 'E')) {
                i++; if (i < s.Length && (s[i] == '+' || s[i] == '-')) i++;
                int e0 = i; while (i < s.Length && char.IsDigit(s[i])) i++;
                if (i == e0) throw new FormatException("bad number at offset " + start);
            }
        } else throw new FormatException("unexpected character '" + c + "' at offset " + i);
        v.Raw = s.Substring(start, i - start);
        return v;
    }
    static bool Lit(string s, ref int i, string w) {
        if (string.CompareOrdinal(s, i, w, 0, w.Length) != 0) return false;
        i += w.Length; return true;
    }
    static string Str_(string s, ref int i) {
        var sb = new StringBuilder();
        i++;
        for (;;) {
            if (i >= s.Length) throw new FormatException("unterminated string");
            char c = s[i++];
            if (c == '"') return sb.ToString();
            if (c < 0x20) throw new FormatException("control character in string");
            if (c != '\\') { sb.Append(c); continue; }
            if (i >= s.Length) throw new FormatException("unterminated string");
            char e = s[i++];
            switch (e) {
                case '"': sb.Append('"'); break; case '\\': sb.Append('\\'); break; case '/': sb.Append('/'); break;
                case 'b': sb.Append('\b'); break; case 'f': sb.Append('\f'); break; case 'n': sb.Append('\n'); break;
                case 'r': sb.Append('\r'); break; case 't': sb.Append('\t'); break;
                case 'u':
                    if (i + 4 > s.Length) throw new FormatException("bad \\u escape");
                    sb.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber)); i += 4; break;
                default: throw new FormatException("bad escape \\" + e);
            }
        }
    }
    public bool Has(string k) { return Obj.ContainsKey(k); }
    public J this[string k] { get { J v; return Obj.TryGetValue(k, out v) ? v : null; } }
    public long Long() { return long.Parse(Raw, CultureInfo.InvariantCulture); }
}

static class Out {  // a small JSON writer
    public static string Q(string s) {
        var sb = new StringBuilder("\"");
        foreach (char c in s) {
            if (c == '"') sb.Append("\\\""); else if (c == '\\') sb.Append("\\\\");
            else if (c == '\n') sb.Append("\\n"); else if (c < 0x20 || c >= 0x7f) sb.AppendFormat("\\u{0:x4}", (int)c);
            else sb.Append(c);
        }
        return sb.Append('"').ToString();
    }
}

// ---------------------------------------------------------------- the probe
// The bench request's `probe` (docs/protocol.md, "bench"): engine/src/probe.c's cb_probe, which
// build.sh compiles into libcb_probe.so beside Runner.exe (Mono looks for a DllImport's library
// in the assembly's folder first). Without it the runner ignores the field.
static class Probe {
    [DllImport("libcb_probe.so")]
    static extern void cb_probe(ulong k, [Out] ulong[] out2);
    [DllImport("libcb_probe.so")]
    static extern ulong cb_preemptions();

    public static readonly bool Loaded = Load();
    // cb_preemptions is there (a library built before it lacks the symbol: no probe_switches)
    static readonly bool Counts = Loaded && HasPreemptions();

    static bool Load() {
        try { cb_probe(1, new ulong[2]); return true; }
        catch (Exception ex) {  // DllNotFoundException, EntryPointNotFoundException, BadImageFormatException
            Console.Error.WriteLine("Runner.exe: the probe is not loaded, so the bench field probe is ignored: " + ex.Message);
            return false;
        }
    }

    static bool HasPreemptions() {
        try { cb_preemptions(); return true; }
        catch (EntryPointNotFoundException) { return false; }
    }

    // One reading of k thousand additions: {serial ns, parallel ns, the calling thread's
    // involuntary context switches right after (Unknown where they cannot be counted)}.
    // Mono runs a managed thread on one native thread, so the count is the timing thread's.
    public static ulong[] Read(long k) {
        var r = new ulong[3];
        cb_probe((ulong)k, r);
        r[2] = Counts ? cb_preemptions() : Unknown;
        return r;
    }

    public const ulong Unknown = ulong.MaxValue;  // cb_preemptions' answer where it cannot tell
}

// ---------------------------------------------------------------- the registry
class Prim {
    public string Name, Kind, Family, Mode;
    public int KeyBytes, BlockBytes, IvBytes, TagBytes, DigestBytes;
    public bool WholeBlocks;
}

// ---------------------------------------------------------------- the one mapping table
// canonical name => what runs. Block ciphers: a factory for the SymmetricAlgorithm, set
// to the mode with PaddingMode.None and, for CFB, the FeedbackSize the name says: cfb = the
// block, cfb8 = 8, cfb128 = 128 (Mono's Rijndael runs SP 800-38A CFB in FeedbackSize-bit
// segments, checked against cfb8/cfb128 answers; its default is 128 whatever the block,
// as in .NET Framework).
class Entry {
    public Func<SymmetricAlgorithm> Sym;
    public Func<HashAlgorithm> Hash;
    public string Class;
}

static class Table {
    public static Dictionary<string, Entry> Build(Dictionary<string, Prim> reg) {
        var t = new Dictionary<string, Entry>();
        foreach (int kb in new[] { 128, 192, 256 }) {
            // AES: AesCryptoServiceProvider for ECB/CBC; it refuses CFB with feedback above
            // 64 bits, so aes-K-cfb (full-block CFB128) and aes-K-cfb8 use RijndaelManaged.
            AddSym(t, reg, "aes-" + kb + "-ecb", () => new AesCryptoServiceProvider(), CipherMode.ECB, 0);
            AddSym(t, reg, "aes-" + kb + "-cbc", () => new AesCryptoServiceProvider(), CipherMode.CBC, 0);
            AddSym(t, reg, "aes-" + kb + "-cfb", () => new RijndaelManaged(), CipherMode.CFB, 128);
            AddSym(t, reg, "aes-" + kb + "-cfb8", () => new RijndaelManaged(), CipherMode.CFB, 128, 8);
            foreach (int bb in new[] { 192, 256 }) {
                string r = "rijndael" + bb + "-" + kb + "-";
                AddSym(t, reg, r + "ecb", () => new RijndaelManaged(), CipherMode.ECB, bb);
                AddSym(t, reg, r + "cbc", () => new RijndaelManaged(), CipherMode.CBC, bb);
                AddSym(t, reg, r + "cfb", () => new RijndaelManaged(), CipherMode.CFB, bb);
                AddSym(t, reg, r + "cfb128", () => new RijndaelManaged(), CipherMode.CFB, bb, 128);  // .NET's default
            }
        }
        // DES, 3DES, RC2: Mono's CFB for these classes runs 8-bit feedback whatever FeedbackSize
        // says (a FeedbackSize of 64 still gives CFB8 output), and 8 is their default, as in
        // .NET Framework, whose CryptoAPI-backed classes take nothing else: so cfb8, not cfb.
        foreach (var m in new[] { CipherMode.ECB, CipherMode.CBC, CipherMode.CFB }) {
            string ms = m == CipherMode.CFB ? "cfb8" : m.ToString().ToLowerInvariant();
            int fb = m == CipherMode.CFB ? 8 : 0;
            AddSym(t, reg, "des-56-" + ms, () => new DESCryptoServiceProvider(), m, 0, fb);
            AddSym(t, reg, "3des-112-" + ms, () => new TripleDESCryptoServiceProvider(), m, 0, fb);
            AddSym(t, reg, "3des-168-" + ms, () => new TripleDESCryptoServiceProvider(), m, 0, fb);
            AddSym(t, reg, "rc2-128-" + ms, () => { var r = new RC2CryptoServiceProvider(); r.KeySize = 128; r.EffectiveKeySize = 128; return r; }, m, 0, fb);
        }
        AddHash(t, reg, "md2", () => (HashAlgorithm)CryptoConfig.CreateFromName("MD2"));  // Mono.Security's MD2Managed
        AddHash(t, reg, "md4", () => (HashAlgorithm)CryptoConfig.CreateFromName("MD4"));  // Mono.Security's MD4Managed
        AddHash(t, reg, "md5", () => MD5.Create());
        AddHash(t, reg, "sha-1", () => SHA1.Create());
        AddHash(t, reg, "sha-256", () => SHA256.Create());
        AddHash(t, reg, "sha-384", () => SHA384.Create());
        AddHash(t, reg, "sha-512", () => SHA512.Create());
        AddHash(t, reg, "ripemd-160", () => RIPEMD160.Create());
        return t;
    }

    // blockBits: 0 = the class's default block. feedbackBits (CFB): 0 = the whole block.
    static void AddSym(Dictionary<string, Entry> t, Dictionary<string, Prim> reg, string name,
                       Func<SymmetricAlgorithm> make, CipherMode mode, int blockBits, int feedbackBits = 0) {
        if (!reg.ContainsKey(name)) return;
        Prim p = reg[name];
        Func<SymmetricAlgorithm> f = () => {
            var a = make();
            if (blockBits != 0) a.BlockSize = blockBits;
            a.Mode = mode;
            a.Padding = PaddingMode.None;
            if (mode == CipherMode.CFB) a.FeedbackSize = feedbackBits != 0 ? feedbackBits : a.BlockSize;
            a.KeySize = p.KeyBytes * 8;
            return a;
        };
        try {
            using (var a = f()) {  // it must really work: one encryption at start-up
                byte[] key = new byte[p.KeyBytes], iv = new byte[p.BlockBytes], b = new byte[p.BlockBytes];
                for (int i = 0; i < key.Length; i++) key[i] = (byte)(0x11 * (i + 1) + i / 8);
                using (var e = a.CreateEncryptor(key, iv)) e.TransformBlock(b, 0, b.Length, new byte[b.Length], 0);
                if (a.BlockSize / 8 != p.BlockBytes) return;
                t[name] = new Entry { Sym = f, Class = a.GetType().Name };
            }
        } catch (Exception e) {
            Console.Error.WriteLine("mono: " + name + " left out: " + e.Message);
        }
    }

    static void AddHash(Dictionary<string, Entry> t, Dictionary<string, Prim> reg, string name, Func<HashAlgorithm> make) {
        if (!reg.ContainsKey(name)) return;
        try {
            using (var h = make()) t[name] = new Entry { Hash = make, Class = h.GetType().Name };
        } catch (Exception e) {
            Console.Error.WriteLine("mono: " + name + " left out: " + e.Message);
        }
    }
}

// ---------------------------------------------------------------- the runner
class Runner {
    // JIT: each new (primitive, operation, workload, size) runs untimed for about 1 s before
    // its first timed batch. CIPHERBENCH_WARMUP_MS overrides the duration (tests use 0).
    static readonly long WarmupNs = WarmupFromEnv();
    static long WarmupFromEnv() {
        long ms;
        string v = Environment.GetEnvironmentVariable("CIPHERBENCH_WARMUP_MS");
        return v != null && long.TryParse(v, out ms) && ms >= 0 ? ms * 1000000 : 1000000000;
    }
    readonly Dictionary<string, Prim> reg = new Dictionary<string, Prim>();
    readonly Dictionary<string, Entry> table;
    readonly HashSet<string> warmed = new HashSet<string>();
    readonly HashSet<string> warmedPaths = new HashSet<string>();

    Runner(string registryFile) {
        foreach (J p in J.Parse(File.ReadAllText(registryFile)).Arr) {
            var x = new Prim {
                Name = p["name"].Str, Kind = p["kind"].Str, Family = p["family"].Str,
                Mode = p["mode"] != null && p["mode"].Kind == 's' ? p["mode"].Str : "",
                KeyBytes = (int)p["key_bytes"].Long(), BlockBytes = (int)p["block_bytes"].Long(),
                IvBytes = (int)p["iv_bytes"].Long(), TagBytes = (int)p["tag_bytes"].Long(),
                DigestBytes = (int)p["digest_bytes"].Long(), WholeBlocks = p["whole_blocks"].Bool,
            };
            reg[x.Name] = x;
        }
        table = Table.Build(reg);
    }

    static string MonoVersion() {
        var t = Type.GetType("Mono.Runtime");
        var m = t == null ? null : t.GetMethod("GetDisplayName", BindingFlags.NonPublic | BindingFlags.Static);
        return m == null ? "unknown" : (string)m.Invoke(null, null);
    }

    // ------------------------------------------------------------ field helpers
    static string Str(J req, string f, string dflt = null) {
        J v = req[f];
        if (v == null) { if (dflt != null) return dflt; throw new Fail("missing field '" + f + "'"); }
        if (v.Kind != 's') throw new Fail("field '" + f + "' must be a string");
        return v.Str;
    }

    static long Count(J req, string f, long dflt, bool required) {
        J v = req[f];
        if (v == null) { if (required) throw new Fail("missing field '" + f + "'"); return dflt; }
        ulong u;
        if (v.Kind != 'n' || !ulong.TryParse(v.Raw, NumberStyles.None, CultureInfo.InvariantCulture, out u))
            throw new Fail("field '" + f + "' must be a non-negative integer");
        return u > long.MaxValue ? long.MaxValue : (long)u;
    }

    static byte[] Unhex(J req, string f, bool required = false) {
        J v = req[f];
        if (v == null || v.Kind == 'z') { if (required) throw new Fail("missing field '" + f + "'"); return new byte[0]; }
        if (v.Kind != 's') throw new Fail("field '" + f + "' must be a hex string");
        return Unhex(v.Str, f);
    }

    static byte[] Unhex(string s, string f) {
        if (s.Length % 2 != 0) throw new Fail("field '" + f + "' has an odd number of hex digits");
        var b = new byte[s.Length / 2];
        for (int i = 0; i < b.Length; i++) b[i] = (byte)(Nib(s[2 * i], f) << 4 | Nib(s[2 * i + 1], f));
        return b;
    }

    static int Nib(char c, string f) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw new Fail("field '" + f + "' is not hex");
    }

    static string Hex(byte[] b, int n) {
        const string d = "0123456789abcdef";
        var c = new char[2 * n];
        for (int i = 0; i < n; i++) { c[2 * i] = d[b[i] >> 4]; c[2 * i + 1] = d[b[i] & 15]; }
        return new string(c);
    }

    // ------------------------------------------------------------ requests
    string Handle(J req) {
        string op = Str(req, "op");
        switch (op) {
            case "hello": return Hello();
            case "encrypt": return CryptFilled(req, true);
            case "decrypt": return CryptFilled(req, false);
            case "hash": return HashOnce(req);
            case "bench": return Bench(req);
            case "cpu-clock": throw new Unsupported("cpu-clock is not available on Mono (no cycle-exact loop)");
            case "ct-sample": return CtSample(req);
        }
        throw new Fail("unknown op '" + op + "'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit");
    }

    string Hello() {
        var names = new List<string>(table.Keys);
        names.Sort(string.CompareOrdinal);
        var prims = new List<string>();
        foreach (string n in names) {
            Entry e = table[n];
            string prov = e.Class + " (Mono " + MonoVersionShort() + " managed code"
                + (e.Sym != null ? ", no AES-NI; message/rekey: CreateEncryptor per message" : "") + ")";
            // Mono's classes are managed code on every CPU: nothing CPU-specific (docs/protocol.md, features)
            prims.Add("{\"name\":" + Out.Q(n) + ",\"provider\":" + Out.Q(prov) + ",\"features\":[\"portable\"]}");
        }
        string impl = "{\"name\":\"mono\",\"library\":" + Out.Q("Mono class library (mscorlib, System.Core) " + typeof(object).Assembly.ImageRuntimeVersion)
            + ",\"version\":" + Out.Q(MonoVersion()) + ",\"available\":" + (prims.Count > 0 ? "true" : "false")
            + ",\"primitives\":[" + string.Join(",", prims) + "]"
            + ",\"notes\":{\"clr\":" + Out.Q(Environment.Version.ToString()) + ",\"warmup_ms\":" + (WarmupNs / 1000000)
            + ",\"warmup\":\"each new (primitive, operation, workload) runs untimed for warmup_ms before its first timed batch, each further size of it for a tenth of that\"}}";
        return "\"status\":\"ok\",\"protocol\":1,\"runner\":\"csharp\",\"language\":\"C#\",\"jit\":true,\"runtime\":" + Out.Q("Mono " + MonoVersion())
            + ",\"clocks\":{\"monotonic\":" + Out.Q("System.Diagnostics.Stopwatch (" + Stopwatch.Frequency + " ticks/s)") + ",\"tsc\":null,\"core_cycles\":null}"
            + ",\"implementations\":[" + impl + "]";
    }

    static string MonoVersionShort() { string v = MonoVersion(); int s = v.IndexOf(' '); return s > 0 ? v.Substring(0, s) : v; }

    void Target(J req, out Prim p, out Entry e) {
        string im = Str(req, "impl"), pn = Str(req, "primitive");
        if (!reg.TryGetValue(pn, out p)) throw new Fail("unknown primitive '" + pn + "' (not in the registry)");
        if (im != "mono") throw new Fail("unknown implementation '" + im + "'");
        if (!table.TryGetValue(pn, out e)) throw new Unsupported("mono does not offer " + pn);
    }

    static void CheckLengths(Prim p, byte[] key, byte[] iv, byte[] aad) {
        if (key.Length != p.KeyBytes) throw new Fail(p.Name + " takes a " + p.KeyBytes + "-byte key, got " + key.Length);
        if (iv.Length != p.IvBytes) throw new Fail(p.Name + " takes a " + p.IvBytes + "-byte IV/nonce, got " + iv.Length);
        if (aad.Length != 0 && p.Kind != "aead") throw new Fail(p.Name + " is not an AEAD and takes no associated data");
    }

    static void CheckInput(Prim p, long n) {
        if (p.WholeBlocks && n % p.BlockBytes != 0)
            throw new Fail(p.Name + " takes whole " + p.BlockBytes + "-byte blocks (no padding), got " + n + " bytes");
    }

    // Mono refuses DES/3DES keys it considers weak; that is the library's choice, not a wrong request.
    static void CheckKeyAccepted(Prim p, byte[] key) {
        if (p.Family == "des" && (DES.IsWeakKey(key) || DES.IsSemiWeakKey(key)))
            throw new Unsupported("Mono's DES refuses weak and semi-weak keys, and this key is one");
        if (p.Family == "3des" && TripleDES.IsWeakKey(key))
            throw new Unsupported("Mono's TripleDES refuses keys whose halves repeat (K1 = K2 or K2 = K3), and this key does");
    }

    static byte[] IvFor(Prim p, byte[] iv) { return iv.Length > 0 ? iv : new byte[p.BlockBytes]; }  // ECB ignores it

    const long MaxFill = 64L << 20;  // cap on "fill" "bytes" (64 MiB)

    // encrypt/decrypt with the optional "fill" and "digest" fields of docs/protocol.md around
    // Crypt: with "fill" {"seed", "bytes": N} the input is N generated bytes followed by the
    // bytes of "input" (FillInput); with "digest" "sha256" the answer carries "output_sha256",
    // the SHA-256 of the output, instead of "output".
    string CryptFilled(J req, bool enc) {
        J digest = req["digest"], fill = req["fill"];
        if (digest != null && (digest.Kind != 's' || digest.Str != "sha256"))
            throw new Fail("field 'digest' must be \"sha256\" (the only digest accepted)");
        if (fill != null) {
            byte[] input = FillInput(fill, Unhex(req, "input", true));
            req.Obj["input"] = new J { Kind = 's', Str = Hex(input, input.Length) };  // Crypt reads the whole input here
        }
        string body = Crypt(req, enc);
        if (fill != null) body += ",\"filled\":true";
        const string output = "\"output\":\"";
        int at = body.IndexOf(output);
        if (digest != null && at >= 0) {  // the answer's output, a hex string, becomes its SHA-256
            int start = at + output.Length, end = body.IndexOf('"', start);
            byte[] d;
            using (var sha = SHA256.Create()) d = sha.ComputeHash(Unhex(body.Substring(start, end - start), "output"));
            body = body.Substring(0, at) + "\"output_sha256\":\"" + Hex(d, d.Length) + "\"" + body.Substring(end + 1);
        }
        return body;
    }

    // The generated bytes of "fill", SHA-256(seed || uint64_be(0)) || SHA-256(seed || uint64_be(1))
    // || ... cut to "bytes", followed by tail.
    static byte[] FillInput(J fill, byte[] tail) {
        if (fill.Kind != 'o') throw new Fail("field 'fill' must be an object {\"seed\": hex, \"bytes\": N}");
        byte[] seed;
        try { seed = Unhex(fill, "seed", true); }
        catch (Fail) { throw new Fail("field 'fill.seed' must be a hex string"); }
        J b = fill["bytes"];
        long n;
        if (b == null || b.Kind != 'n' || !long.TryParse(b.Raw, NumberStyles.None, CultureInfo.InvariantCulture, out n) || n > MaxFill)
            throw new Fail("field 'fill.bytes' must be an integer from 0 to " + MaxFill + ", got " + (b == null ? "null" : b.Raw));
        var input = new byte[n + tail.Length];
        var msg = new byte[seed.Length + 8];  // seed || big-endian counter
        Buffer.BlockCopy(seed, 0, msg, 0, seed.Length);
        using (var sha = SHA256.Create())
            for (long i = 0; i < n; i += 32) {
                for (int k = 0; k < 8; k++) msg[seed.Length + k] = (byte)((i / 32) >> (56 - 8 * k));
                Buffer.BlockCopy(sha.ComputeHash(msg), 0, input, (int)i, (int)Math.Min(32, n - i));
            }
        Buffer.BlockCopy(tail, 0, input, (int)n, tail.Length);
        return input;
    }

    string Crypt(J req, bool enc) {
        Prim p; Entry e;
        Target(req, out p, out e);
        if (p.Kind == "hash") throw new Fail(p.Name + " is a hash: use op 'hash'");
        J inplace = req["inplace"];
        if (inplace != null && inplace.Kind == 'b' && inplace.Bool) throw new Unsupported("this runner does not offer in-place operation ('inplace')");
        byte[] key = Unhex(req, "key"), iv = Unhex(req, "iv"), aad = Unhex(req, "aad"), input = Unhex(req, "input", true);
        CheckLengths(p, key, iv, aad);
        CheckInput(p, input.Length);
        int bs = p.BlockBytes, n = input.Length, padded = (n + bs - 1) / bs * bs;
        List<int> parts = Chunks(req, p, n);
        if (parts != null)
            for (int i = 0; i + 1 < parts.Count; i++)
                if (parts[i] % bs != 0)
                    throw new Unsupported("Mono's transforms take whole blocks: every chunk but the last must be a multiple of " + bs + " bytes");
        CheckKeyAccepted(p, key);
        // CFB accepts any length; Mono's transforms take whole blocks, so a final partial
        // block is zero-padded and the output cut back (CFB output is position-wise).
        byte[] inb = new byte[padded], outb = new byte[padded];
        Buffer.BlockCopy(input, 0, inb, 0, n);
        using (var a = e.Sym())
        using (var t = enc ? a.CreateEncryptor(key, IvFor(p, iv)) : a.CreateDecryptor(key, IvFor(p, iv))) {
            // Each piece is written to the start of an output buffer and copied into place,
            // as CryptoStream does: Mono's CFB encryption ignores outputOffset for its
            // feedback (see README), which is not what the streaming check is about.
            int at = 0;
            byte[] piece = new byte[padded];
            foreach (int len in parts ?? new List<int> { n }) {
                int whole = (len + bs - 1) / bs * bs;  // only the last piece can be partial
                int got = whole == 0 ? 0 : t.TransformBlock(inb, at, whole, piece, 0);
                if (got != whole) throw new Fail(p.Name + ": TransformBlock returned " + got + " bytes for " + whole);
                Buffer.BlockCopy(piece, 0, outb, at, whole);
                at += len;
            }
        }
        return "\"status\":\"ok\",\"output\":\"" + Hex(outb, n) + "\"" + (parts != null ? ",\"chunked\":true" : "");
    }

    // ct-sample (docs/protocol.md): single encryptions of a fixed and a random class,
    // interleaved in an order drawn from the seed (System.Random), each timed alone with
    // Stopwatch. Every call creates its encryptor (key schedule and IV) and transforms the
    // whole input, in both classes: Mono's transforms do not restart a message. 5,000
    // untimed calls first, for the JIT.
    string CtSample(J req) {
        Prim p; Entry e;
        Target(req, out p, out e);
        if (p.Kind == "hash" || e.Sym == null) throw new Unsupported(p.Name + " is a hash: ct-sample times ciphers");
        string vary = Str(req, "vary");
        if (vary != "key" && vary != "plaintext") throw new Fail("vary must be 'key' or 'plaintext'");
        long samples = Count(req, "samples", 0, true), seed = Count(req, "seed", 0, true);
        if (samples < 2 || samples > 1000000) throw new Fail("samples must be in 2..1000000");
        byte[] key = Unhex(req, "key", true), iv = Unhex(req, "iv"), aad = Unhex(req, "aad"), msg = Unhex(req, "input", true);
        CheckLengths(p, key, iv, aad);
        if (msg.Length < 1 || msg.Length > 65536) throw new Fail("input must be 1 to 65536 bytes");
        CheckInput(p, msg.Length);
        CheckKeyAccepted(p, key);
        int bs = p.BlockBytes, n = (int)samples, padded = (msg.Length + bs - 1) / bs * bs;
        bool byKey = vary == "key";
        byte[] fixedIn = byKey ? key : msg;
        var rng = new Random((int)(seed & 0x7fffffff));
        var classes = new int[n];
        var inputs = new byte[n][];
        for (int i = 0; i < n; i++) classes[i] = rng.Next(2);
        for (int i = 0; i < n; i++) {
            // every call its own buffer, the fixed class a copy: the classes differ in their
            // values, never in where they lie (one shared fixed buffer reads as a leak)
            if (classes[i] == 0) { inputs[i] = (byte[])fixedIn.Clone(); continue; }
            inputs[i] = new byte[fixedIn.Length];
            do rng.NextBytes(inputs[i]); while (byKey && WeakKey(p, inputs[i]));  // Mono refuses those
        }
        byte[] inb = new byte[padded], outb = new byte[padded], ivb = IvFor(p, iv);
        var times = new long[n];
        using (var a = e.Sym()) {
            Action<byte[]> call = x => {
                if (!byKey) Buffer.BlockCopy(x, 0, inb, 0, x.Length);
                else Buffer.BlockCopy(msg, 0, inb, 0, msg.Length);
                using (var t = a.CreateEncryptor(byKey ? x : key, ivb)) t.TransformBlock(inb, 0, padded, outb, 0);
            };
            for (int i = 0; i < 5000; i++) call(inputs[i % n]);  // warm-up, untimed
            for (int i = 0; i < n; i++) {
                long t0 = Stopwatch.GetTimestamp();
                call(inputs[i]);
                times[i] = Stopwatch.GetTimestamp() - t0;
            }
        }
        return "\"status\":\"ok\",\"vary\":" + Out.Q(vary) + ",\"samples\":" + n
            + ",\"timer\":" + Out.Q("Stopwatch ticks (" + Stopwatch.Frequency + "/s)")
            + ",\"classes\":[" + string.Join(",", classes) + "],\"times\":[" + string.Join(",", times) + "]";
    }

    static bool WeakKey(Prim p, byte[] key) {
        return (p.Family == "des" && (DES.IsWeakKey(key) || DES.IsSemiWeakKey(key)))
            || (p.Family == "3des" && TripleDES.IsWeakKey(key));
    }

    // The optional "chunks" field: lengths of consecutive TransformBlock calls, then the rest.
    static List<int> Chunks(J req, Prim p, int n) {
        J v = req["chunks"];
        if (v == null || v.Kind == 'z') return null;
        if (v.Kind != 'a') throw new Fail("field 'chunks' must be a list of byte counts");
        var parts = new List<int>();
        long sum = 0;
        foreach (J c in v.Arr) {
            ulong len;
            if (c.Kind != 'n' || !ulong.TryParse(c.Raw, NumberStyles.None, CultureInfo.InvariantCulture, out len) || len == 0)
                throw new Fail("field 'chunks' must hold positive byte counts");
            if (p.WholeBlocks && len % (ulong)p.BlockBytes != 0)
                throw new Fail(p.Name + " takes whole " + p.BlockBytes + "-byte blocks: chunk of " + len + " bytes");
            if (len > (ulong)(n - sum)) throw new Fail("chunks add up to more than the " + n + "-byte input");
            sum += (long)len;
            parts.Add((int)len);
        }
        if (sum < n) parts.Add((int)(n - sum));
        return parts;
    }

    string HashOnce(J req) {
        Prim p; Entry e;
        Target(req, out p, out e);
        if (p.Kind != "hash") throw new Fail(p.Name + " is not a hash: use encrypt/decrypt");
        byte[] input = Unhex(req, "input", true);
        using (var h = e.Hash()) {
            byte[] d = h.ComputeHash(input);
            return "\"status\":\"ok\",\"output\":\"" + Hex(d, d.Length) + "\"";
        }
    }

    static long Ns(long ticks) { return (long)(ticks * (1e9 / Stopwatch.Frequency)); }

    string Bench(J req) {
        Prim p; Entry e;
        Target(req, out p, out e);
        string op = Str(req, "operation"), wl = Str(req, "workload", "bulk");
        bool ks = op == "keysetup" || op == "keysetup-decrypt";
        long size = Count(req, "size", 0, !ks), loops = Count(req, "loops", 0, true), batches = Count(req, "batches", 1, false);
        if (loops == 0 || batches == 0) throw new Fail("loops and batches must be at least 1");
        if (batches > 100000) throw new Fail("at most 100000 batches per request");
        if (size > (1L << 30)) throw new Fail("size is limited to 1 GiB");
        // docs/protocol.md "bench": caps far above any calibrated batch, so an absurd count is
        // refused instead of running until the orchestrator's timeout
        if (loops > 1000000000L) throw new Fail("loops must be at most 1000000000");
        if (loops * Math.Max(size, 1L) > (1L << 36)) throw new Fail("loops x size must be at most 2^36 bytes per batch");
        // docs/protocol.md `warmup_ms`: the orchestrator's warm-up for a new code path, this run
        long warmupMs = Count(req, "warmup_ms", -1, false);
        if (warmupMs > 60000) throw new Fail("warmup_ms is limited to 60000");
        requestWarmupNs = warmupMs >= 0 ? warmupMs * 1000000L : WarmupNs;
        long probe = req["probe"] == null || req["probe"].Kind == 'z' ? 0 : Count(req, "probe", 0, false);
        if (probe > 100000) throw new Fail("probe must be in 0..100000");
        requestProbe = Probe.Loaded ? probe : 0;
        if (wl != "bulk" && wl != "message" && wl != "rekey") throw new Fail("unknown workload '" + wl + "'; accepted: bulk, message, rekey");
        if (Array.IndexOf(new[] { "encrypt", "decrypt", "decrypt-forged", "keysetup", "keysetup-decrypt", "hash" }, op) < 0)
            throw new Fail("unknown operation '" + op + "'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash");
        int n = (int)size;
        byte[] buf = new byte[Math.Max(n, 1)], outb = new byte[Math.Max(n, 1)];
        for (int i = 0; i < buf.Length; i++) buf[i] = (byte)i;
        Func<long> batch;  // runs `loops` calls between two clock reads, returns ticks

        if (p.Kind == "hash") {
            if (op != "hash") throw new Fail(p.Name + " is a hash: operation must be 'hash'");
            if (wl == "rekey") throw new Fail("hashes have no key: use workload bulk or message");
            var h = e.Hash();
            if (wl == "bulk") batch = () => {
                h.Initialize();
                long t0 = Stopwatch.GetTimestamp();
                for (long i = 0; i < loops; i++) h.TransformBlock(buf, 0, n, null, 0);
                long t1 = Stopwatch.GetTimestamp();
                h.TransformFinalBlock(buf, 0, 0);
                return t1 - t0;
            };
            else batch = () => {
                long t0 = Stopwatch.GetTimestamp();
                for (long i = 0; i < loops; i++) h.ComputeHash(buf, 0, n);
                return Stopwatch.GetTimestamp() - t0;
            };
            return Run(p, op, wl, size, batches, batch);
        }
        if (op == "hash") throw new Fail(p.Name + " is not a hash: operation 'hash' applies to hashes only");
        if (op == "decrypt-forged") throw new Fail("decrypt-forged applies to AEADs only");
        byte[] key = Unhex(req, "key"), iv0 = Unhex(req, "iv"), aad = Unhex(req, "aad");
        CheckLengths(p, key, iv0, aad);
        if (!ks) CheckInput(p, size);
        CheckKeyAccepted(p, key);
        if (!ks && n % p.BlockBytes != 0)
            throw new Unsupported("Mono's transforms take whole " + p.BlockBytes + "-byte blocks; CFB is timed only for sizes that are multiples of the block");
        byte[] iv = IvFor(p, iv0);
        var a = e.Sym();
        bool enc = op == "encrypt" || op == "keysetup";
        if (ks) {
            batch = () => {
                long t0 = Stopwatch.GetTimestamp();
                if (enc) for (long i = 0; i < loops; i++) a.CreateEncryptor(key, iv).Dispose();
                else for (long i = 0; i < loops; i++) a.CreateDecryptor(key, iv).Dispose();
                return Stopwatch.GetTimestamp() - t0;
            };
        } else if (wl == "bulk") {
            batch = () => {
                using (var t = enc ? a.CreateEncryptor(key, iv) : a.CreateDecryptor(key, iv)) {
                    long t0 = Stopwatch.GetTimestamp();
                    for (long i = 0; i < loops; i++) t.TransformBlock(buf, 0, n, outb, 0);
                    return Stopwatch.GetTimestamp() - t0;
                }
            };
        } else {
            // message and rekey: .NET sets an IV only through CreateEncryptor(key, iv), which
            // also expands the key, so both workloads are the same loop. Encryption moves to
            // the next nonce per message (ECB has none); decryption opens the same message.
            bool bump = enc && p.IvBytes > 0;
            batch = () => {
                long t0 = Stopwatch.GetTimestamp();
                for (long i = 0; i < loops; i++) {
                    using (var t = enc ? a.CreateEncryptor(key, iv) : a.CreateDecryptor(key, iv))
                        t.TransformBlock(buf, 0, n, outb, 0);
                    if (bump) for (int j = iv.Length - 1; j >= 0 && ++iv[j] == 0; j--) { }
                }
                return Stopwatch.GetTimestamp() - t0;
            };
        }
        return Run(p, op, wl, size, batches, batch);
    }

    long requestWarmupNs;  // set by Bench from the request (warmup_ms) or the default
    long requestProbe;  // set by Bench from the request (probe; 0: none, or no probe loaded)

    string Run(Prim p, string op, string wl, long size, long batches, Func<long> batch) {
        // The full warm-up runs once per code path (primitive, operation, workload); a
        // further size of the same path is already compiled and gets a tenth.
        string path = p.Name + "/" + op + "/" + wl;
        if (warmed.Add(path + "/" + size)) {
            long warmup = warmedPaths.Add(path) ? requestWarmupNs : requestWarmupNs / 10;
            long spent = 0, t0 = Stopwatch.GetTimestamp();
            while (Ns(spent) < warmup) { batch(); spent = Stopwatch.GetTimestamp() - t0; }
        }
        var ns = new List<string>();
        // the probe (if asked): once right before the first timed batch, once right after each
        long k = requestProbe;
        var probes = new List<ulong[]>();
        if (k > 0) probes.Add(Probe.Read(k));
        for (long b = 0; b < batches; b++) {
            ns.Add(Ns(batch()).ToString(CultureInfo.InvariantCulture));
            if (k > 0) probes.Add(Probe.Read(k));
        }
        return "\"status\":\"ok\",\"ns\":[" + string.Join(",", ns) + "],\"tsc\":null,\"core_cycles\":null" + ProbeFields(k, probes);
    }

    static string ProbeFields(long k, List<ulong[]> probes) {
        if (probes.Count == 0) return "";
        var serial = new List<string>();
        var parallel = new List<string>();
        var switches = new List<string>();
        foreach (ulong[] r in probes) {
            serial.Add(r[0].ToString(CultureInfo.InvariantCulture));
            parallel.Add(r[1].ToString(CultureInfo.InvariantCulture));
            if (r[2] != Probe.Unknown) switches.Add(r[2].ToString(CultureInfo.InvariantCulture));
        }
        return ",\"probe_cycles\":" + (k * 1000) + ",\"probe_ns\":[" + string.Join(",", serial)
            + "],\"probe_parallel_ns\":[" + string.Join(",", parallel) + "]"
            + (switches.Count == probes.Count ? ",\"probe_switches\":[" + string.Join(",", switches) + "]" : "");
    }

    // ------------------------------------------------------------ main loop
    static int Main(string[] args) {
        SetInvariantCulture();
        string file = args.Length > 0 ? args[0] : Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "registry.json");
        if (!File.Exists(file)) { Console.Error.WriteLine("Runner.exe: " + file + " is missing: run runners/csharp/build.sh"); return 2; }
        var runner = new Runner(file);
        var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false), false, 1 << 16);
        var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16);
        stdout.NewLine = "\n";
        string line;
        while ((line = stdin.ReadLine()) != null) {
            string id = "null", body;
            try {
                // every line is answered, a blank one too (docs/protocol.md)
                if (line.Trim().Length == 0) throw new Fail("blank line: a request must be a JSON object");
                J req;
                try { req = J.Parse(line); }
                catch (FormatException ex) { throw new Fail("malformed request: not JSON (" + ex.Message + ")"); }
                if (req.Kind != 'o') throw new Fail("a request must be a JSON object");
                // a number id beyond a double (1e999) would be echoed as text most parsers read as
                // an infinity: refused, as docs/protocol.md says
                // (Mono's TryParse fails on overflow; .NET Core's answers an infinity)
                double idNum;
                if (req.Has("id") && req["id"].Kind == 'n' &&
                    (!double.TryParse(req["id"].Raw, NumberStyles.Float, CultureInfo.InvariantCulture, out idNum)
                     || double.IsInfinity(idNum)))
                    throw new Fail("malformed request: id is a number out of range");
                if (req.Has("id")) id = req["id"].Raw;
                if (req["op"] != null && req["op"].Kind == 's' && req["op"].Str == "quit") break;
                body = runner.Handle(req);
            } catch (Unsupported ex) {
                body = "\"status\":\"unsupported\",\"message\":" + Out.Q(ex.Message);
            } catch (Exception ex) {
                body = "\"status\":\"error\",\"message\":" + Out.Q(ex is Fail ? ex.Message : ex.GetType().Name + ": " + ex.Message);
            }
            stdout.Write("{" + body + ",\"id\":" + id + "}\n");
            stdout.Flush();
        }
        stdout.Flush();
        return 0;
    }

    static void SetInvariantCulture() {
        System.Threading.Thread.CurrentThread.CurrentCulture = CultureInfo.InvariantCulture;
    }
}
