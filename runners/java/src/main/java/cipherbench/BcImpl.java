// Implementation "bouncycastle": Bouncy Castle's lightweight API (org.bouncycastle.crypto):
// engines, mode classes and digests used directly, without the JCA provider.
package cipherbench;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.function.Supplier;
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.StreamBlockCipher;
import org.bouncycastle.crypto.StreamCipher;
import org.bouncycastle.crypto.Xof;
import org.bouncycastle.crypto.digests.*;
import org.bouncycastle.crypto.engines.*;
import org.bouncycastle.crypto.modes.*;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.bouncycastle.crypto.params.ParametersWithSBox;
import org.bouncycastle.crypto.params.RC2Parameters;
import org.bouncycastle.crypto.params.RC5Parameters;
import org.bouncycastle.crypto.params.TweakableBlockCipherParameters;

final class BcImpl extends Main.Impl {
    // ------------------------------------------------------------ the mapping table
    /** Block cipher engine for a registry cipher id, or null. Every registry mode listed in
     *  MODES that the registry gives the cipher is offered with it. */
    static BlockCipher engine(String family) {
        switch (family) {
            case "aes": return AESEngine.newInstance();
            case "rijndael192": return new RijndaelEngine(192);
            case "rijndael256": return new RijndaelEngine(256);
            case "twofish": return new TwofishEngine();
            case "serpent": return new SerpentEngine();    // NESSIE byte order
            case "tnepres": return new TnepresEngine();    // AES-submission byte order
            case "rc6": return new RC6Engine();
            case "cast256": return new CAST6Engine();
            case "noekeondirect": return new NoekeonEngine();  // BC's Noekeon is the direct key mode (NESSIE vectors)
            case "camellia": return new CamelliaEngine();
            case "seed": return new SEEDEngine();
            case "aria": return new ARIAEngine();
            case "sm4": return new SM4Engine();
            case "idea": return new IDEAEngine();
            case "rc2": return new RC2Engine();            // RC2Parameters(key, 128)
            case "rc2e1024": return new RC2Engine();       // RC2Parameters(key, 1024)
            case "rc5": return new RC532Engine();          // RC5-32, RC5Parameters(key, 12 rounds)
            case "blowfish": return new BlowfishEngine();
            case "cast5": return new CAST5Engine();
            case "des": return new DESEngine();
            case "3des": return new DESedeEngine();        // 16-byte key = two-key EDE
            case "xtea": return new XTEAEngine();
            case "tea": return new TEAEngine();
            case "skipjackrev": return new SkipjackEngine();  // the NSA specification's example order (not SP 800-17's)
            case "gost": return new GOST28147Engine();     // S-box "D-TEST" (GOST R 34.11-94 test parameters)
            case "threefish256": return new ThreefishEngine(ThreefishEngine.BLOCKSIZE_256);
            case "threefish512": return new ThreefishEngine(ThreefishEngine.BLOCKSIZE_512);
            case "threefish1024": return new ThreefishEngine(ThreefishEngine.BLOCKSIZE_1024);
            default: return null;
        }
    }

    static CipherParameters keyParam(String family, byte[] key) {
        switch (family) {
            case "rc2": return new RC2Parameters(key, 128);
            case "rc2e1024": return new RC2Parameters(key, 1024);
            case "rc5": return new RC5Parameters(key, 12);
            case "gost": return new ParametersWithSBox(new KeyParameter(key), GOST28147Engine.getSBox("D-TEST"));
            case "threefish256": case "threefish512": case "threefish1024":
                return new TweakableBlockCipherParameters(new KeyParameter(key), new byte[16]);  // zero tweak
            default: return new KeyParameter(key);
        }
    }

    static final Set<String> MODES = Set.of("ecb", "cbc", "cfb", "cfb8", "cfb128", "ofb", "ctr", "gcm", "ccm", "ocb", "eax", "gcmsiv");

    /** Stream ciphers and AEADs not named by a block mode. */
    static Object other(String name) {
        switch (name) {
            case "chacha20": return new ChaCha7539Engine();
            case "salsa20": return new Salsa20Engine();
            case "xsalsa20": return new XSalsa20Engine();
            case "xchacha20": return new XChaCha20Engine();
            case "rc4": return new RC4Engine();
            case "chacha20-poly1305": return new ChaCha20Poly1305();
            case "xchacha20-poly1305": return new XChaCha20Poly1305();
            default: return null;
        }
    }

    static Digest digest(String name) {
        switch (name) {
            case "md2": return new MD2Digest();
            case "md4": return new MD4Digest();
            case "md5": return new MD5Digest();
            case "sha-1": return new SHA1Digest();
            case "sha-224": return new SHA224Digest();
            case "sha-256": return new SHA256Digest();
            case "sha-384": return new SHA384Digest();
            case "sha-512": return new SHA512Digest();
            case "sha-512-256": return new SHA512tDigest(256);
            case "sha3-224": return new SHA3Digest(224);
            case "sha3-256": return new SHA3Digest(256);
            case "sha3-384": return new SHA3Digest(384);
            case "sha3-512": return new SHA3Digest(512);
            case "shake128": return new SHAKEDigest(128);   // read 32 bytes
            case "shake256": return new SHAKEDigest(256);   // read 64 bytes
            case "blake2b-512": return new Blake2bDigest(512);
            case "blake2b-256": return new Blake2bDigest(256);
            case "blake2s-256": return new Blake2sDigest(256);
            case "ripemd-160": return new RIPEMD160Digest();
            case "sm3": return new SM3Digest();
            case "whirlpool": return new WhirlpoolDigest();
            case "streebog-256": return new GOST3411_2012_256Digest();
            case "streebog-512": return new GOST3411_2012_512Digest();
            case "tiger": return new TigerDigest();
            default: return null;
        }
    }

    // Stream ciphers and AEADs whose nonce feeds a key derivation: a new nonce needs the key again.
    static final Set<String> RESTART_NEEDS_KEY = Set.of("xsalsa20", "xchacha20", "xchacha20-poly1305", "gcmsiv");

    final Map<String, Main.Prim> reg;
    final String version;

    BcImpl(Map<String, Main.Prim> reg) {
        this.reg = reg;
        String v = "unknown", jar = "unknown";
        try {
            jar = BlockCipher.class.getProtectionDomain().getCodeSource().getLocation().getPath();
            try (JarFile j = new JarFile(jar)) {
                v = j.getManifest().getMainAttributes().getValue("Bundle-Version");
            }
        } catch (Exception e) { /* keep unknown */ }
        version = v;
        notes.put("jar", jar);
        // An older release (cipherbench versions add) may lack a class or factory this runner was
        // compiled against (AESEngine.newInstance came in 1.74, XChaCha20Engine in 1.85): a
        // primitive that needs one is left out, the others are offered.
        try {
            notes.put("aes_engine", AESEngine.newInstance().getClass().getName());
        } catch (LinkageError e) {
            notes.put("aes_engine", "unknown: " + e);
        }
        for (Main.Prim p : reg.values()) {
            String what = null;
            try {
                if (p.kind.equals("hash")) {
                    Digest d = digest(p.name);
                    if (d == null) continue;
                    what = d.getClass().getSimpleName();
                    hash(p).update(new byte[3], 0, 3);
                } else {
                    if (p.mode.isEmpty() ? other(p.name) == null : !MODES.contains(p.mode) || engine(p.family) == null) continue;
                    Main.Ctx c = ctx(p);  // it must really work: one encryption at start-up
                    byte[] key = new byte[p.keyBytes];
                    for (int i = 0; i < key.length; i++) key[i] = (byte) (0x11 * (i + 1) + i / 8);
                    c.init(true, key, new byte[p.ivBytes], new byte[0]);
                    int n = p.blockBytes > 0 ? p.blockBytes : 16;
                    c.process(new byte[n], 0, n, new byte[n + 64], 0);
                    what = ((Described) c).describe();
                }
            } catch (Exception | LinkageError e) {
                System.err.println("bouncycastle: " + p.name + " left out: " + e);
                continue;
            }
            offers.put(p.name, "BC " + what + " (pure Java)");
            features.put(p.name, List.of("portable"));
        }
    }

    @Override String name() { return "bouncycastle"; }
    @Override String library() { return "Bouncy Castle bcprov-jdk18on, lightweight API"; }
    @Override String version() { return version; }

    @Override
    String benchRefusal(Main.Prim p, String op, String workload) {
        if (workload.equals("bulk") && (p.mode.equals("ccm") || p.mode.equals("gcmsiv")) && !op.startsWith("keysetup"))
            return "BC's " + p.mode.toUpperCase() + " buffers the whole message until doFinal (it needs the length first): use workload message";
        return null;
    }

    interface Described {
        String describe();
    }

    @Override
    Main.Ctx ctx(Main.Prim p) throws Exception {
        if (p.mode.isEmpty()) {
            Object o = other(p.name);
            if (o instanceof AEADCipher) return new AeadCtx(p, (AEADCipher) o);
            return new StreamCtx(p, (StreamCipher) o, p.ivBytes > 0);
        }
        BlockCipher e = engine(p.family);
        int bits = 8 * e.getBlockSize();
        switch (p.mode) {
            case "ecb": return new BlockCtx(p, e, false);
            case "cbc": return new BlockCtx(p, CBCBlockCipher.newInstance(e), true);
            case "cfb": return new StreamCtx(p, CFBBlockCipher.newInstance(e, bits), true);
            case "cfb8": return new StreamCtx(p, CFBBlockCipher.newInstance(e, 8), true);
            case "cfb128": return new StreamCtx(p, CFBBlockCipher.newInstance(e, 128), true);  // 16-byte segments, wider blocks
            case "ofb": return new StreamCtx(p, new OFBBlockCipher(e, bits), true);
            case "ctr": return new StreamCtx(p, SICBlockCipher.newInstance(e), true);  // whole block = big-endian counter
            case "gcm": return new AeadCtx(p, GCMBlockCipher.newInstance(e));
            case "ccm": return new AeadCtx(p, CCMBlockCipher.newInstance(e));
            case "ocb": return new AeadCtx(p, new OCBBlockCipher(e, engine(p.family)));
            case "eax": return new AeadCtx(p, new EAXBlockCipher(e));
            case "gcmsiv": return new AeadCtx(p, new GCMSIVBlockCipher(e));
            default: throw new Main.Unsupported("bouncycastle does not offer " + p.name);
        }
    }

    @Override
    Main.HashCtx hash(Main.Prim p) {
        final Digest d = digest(p.name);
        final int len = p.digestBytes;
        return new Main.HashCtx() {
            void reset() { d.reset(); }
            void update(byte[] in, int off, int n) { d.update(in, off, n); }
            int doFinal(byte[] out) { return d instanceof Xof ? ((Xof) d).doFinal(out, 0, len) : d.doFinal(out, 0); }
        };
    }

    /** ECB and CBC: whole blocks through processBlock. */
    static final class BlockCtx extends Main.Ctx implements Described {
        final Main.Prim p;
        final BlockCipher c;
        final boolean hasIv;
        final int bs;

        BlockCtx(Main.Prim p, BlockCipher c, boolean hasIv) {
            this.p = p;
            this.c = c;
            this.hasIv = hasIv;
            bs = c.getBlockSize();
        }

        public String describe() { return c.getClass().getSimpleName() + (hasIv ? "(" + ((CBCModeCipher) c).getUnderlyingCipher().getClass().getSimpleName() + ")" : ""); }

        @Override
        void init(boolean enc, byte[] key, byte[] iv, byte[] aad) {
            CipherParameters k = keyParam(p.family, key);
            c.init(enc, hasIv ? new ParametersWithIV(k, iv) : k);
        }

        @Override
        void restart(boolean enc, byte[] iv, byte[] aad) {
            if (hasIv) c.init(enc, new ParametersWithIV(null, iv));  // new IV, same key schedule
        }

        @Override
        int update(byte[] in, int off, int len, byte[] out, int outOff) {
            for (int i = 0; i + bs <= len; i += bs) c.processBlock(in, off + i, out, outOff + i);
            return len - len % bs;
        }

        @Override
        int finish(byte[] out, int outOff) { return 0; }
    }

    /** CFB, CFB8, OFB, CTR and the stream ciphers: processBytes, any length. */
    static final class StreamCtx extends Main.Ctx implements Described {
        final Main.Prim p;
        final StreamCipher c;
        final boolean hasIv, restartNeedsKey;
        byte[] key;

        StreamCtx(Main.Prim p, StreamCipher c, boolean hasIv) {
            this.p = p;
            this.c = c;
            this.hasIv = hasIv;
            restartNeedsKey = RESTART_NEEDS_KEY.contains(p.name);
        }

        public String describe() { return c.getClass().getSimpleName() + (c instanceof StreamBlockCipher ? "(" + ((StreamBlockCipher) c).getUnderlyingCipher().getClass().getSimpleName() + ")" : ""); }

        @Override
        void init(boolean enc, byte[] k, byte[] iv, byte[] aad) {
            key = k;
            CipherParameters kp = keyParam(p.family, k);
            c.init(enc, hasIv ? new ParametersWithIV(kp, iv) : kp);
        }

        @Override
        void restart(boolean enc, byte[] iv, byte[] aad) {
            if (!hasIv) c.reset();  // RC4: back to the state right after the key schedule
            else c.init(enc, new ParametersWithIV(restartNeedsKey ? keyParam(p.family, key) : null, iv));
        }

        @Override
        int update(byte[] in, int off, int len, byte[] out, int outOff) {
            return c.processBytes(in, off, len, out, outOff);
        }

        @Override
        int finish(byte[] out, int outOff) { return 0; }
    }

    /** GCM, CCM, OCB, EAX, GCM-SIV, (X)ChaCha20-Poly1305: 16-byte tags. */
    static final class AeadCtx extends Main.Ctx implements Described {
        final Main.Prim p;
        final AEADCipher c;
        final boolean restartNeedsKey;
        byte[] key;

        AeadCtx(Main.Prim p, AEADCipher c) {
            this.p = p;
            this.c = c;
            restartNeedsKey = RESTART_NEEDS_KEY.contains(p.name) || RESTART_NEEDS_KEY.contains(p.mode);
        }

        public String describe() { return c.getClass().getSimpleName() + (c instanceof AEADBlockCipher ? "(" + ((AEADBlockCipher) c).getUnderlyingCipher().getClass().getSimpleName() + ")" : ""); }

        @Override
        void init(boolean enc, byte[] k, byte[] iv, byte[] aad) {
            key = k;
            c.init(enc, new AEADParameters(new KeyParameter(k), 8 * p.tagBytes, iv, aad.length > 0 ? aad : null));
        }

        @Override
        void restart(boolean enc, byte[] iv, byte[] aad) {
            c.init(enc, new AEADParameters(restartNeedsKey ? new KeyParameter(key) : null, 8 * p.tagBytes, iv, aad.length > 0 ? aad : null));
        }

        @Override
        int update(byte[] in, int off, int len, byte[] out, int outOff) {
            return c.processBytes(in, off, len, out, outOff);
        }

        @Override
        int finish(byte[] out, int outOff) throws Exception {
            try {
                return c.doFinal(out, outOff);
            } catch (InvalidCipherTextException e) {
                throw new Main.AuthFail();
            }
        }
    }
}
