package dev.sluice.proxy.tls;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Cleaner;
import java.security.SignatureException;
import java.security.interfaces.RSAPrivateCrtKey;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * RSA private-key operations by the system's OpenSSL 3 ({@code libcrypto.so.3}), called through the JDK's foreign
 * function interface. BoringSSL, which does Sluice's TLS, has no AVX-512 IFMA path for RSA: on a CPU with one (this
 * project's machines: AMD EPYC) an RSA-2048 signature costs it about 460 us more than OpenSSL 3's 264 us, and a full
 * handshake with an RSA certificate is one signature. So the TLS contexts of RSA certificates hand their signatures to
 * this class ({@link RsaKeyMethod}); the handshake itself stays BoringSSL's.
 * <p>
 * Loaded once; {@link #INSTANCE} is null where the library or a function is missing, its version is below 3.0, native
 * access is denied, or {@code -Dsluice.tls.rsa=boringssl} asks for BoringSSL's own signatures. Keys are imported as
 * PKCS#8 and freed when their {@link Key} is unreachable. Thread-safe: OpenSSL 3 allows concurrent operations on one
 * key, each call has its own context and memory.
 */
final class SystemRsa {
    /** The library, or null (then BoringSSL signs). */
    static final SystemRsa INSTANCE = load();

    /** OpenSSL's RSA_NO_PADDING, RSA_PKCS1_PSS_PADDING and RSA_PSS_SALTLEN_DIGEST (PKCS#1 v1.5 is the default). */
    private static final int NO_PADDING = 3;
    private static final int PSS = 6;
    private static final int SALT_DIGEST = -1;

    private static final Cleaner CLEANER = Cleaner.create();

    private final SymbolLookup lib;
    private final Linker linker;
    private volatile String version;
    private volatile Decryption decryption;
    private final MethodHandle d2iAutoPrivateKey;
    private final MethodHandle pkeyFree;
    private final MethodHandle mdCtxNew;
    private final MethodHandle mdCtxFree;
    private final MethodHandle digestSignInit;
    private final MethodHandle digestSign;
    private final MethodHandle setPadding;
    private final MethodHandle setSaltLen;
    private final MethodHandle clearError;
    private final MemorySegment sha1;
    private final MemorySegment sha256;
    private final MemorySegment sha384;
    private final MemorySegment sha512;

    private SystemRsa(SymbolLookup lib, Linker linker) throws Throwable {
        MethodHandle versionNum = linker.downcallHandle(find(lib, "OpenSSL_version_num"), FunctionDescriptor.of(JAVA_LONG));
        long num = (long) versionNum.invokeExact();
        if (num < 0x3000_0000L) {
            throw new UnsupportedOperationException("OpenSSL " + Long.toHexString(num) + " is older than 3.0");
        }
        this.lib = lib;
        this.linker = linker;
        d2iAutoPrivateKey = linker.downcallHandle(find(lib, "d2i_AutoPrivateKey"), FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        pkeyFree = linker.downcallHandle(find(lib, "EVP_PKEY_free"), FunctionDescriptor.ofVoid(ADDRESS));
        mdCtxNew = linker.downcallHandle(find(lib, "EVP_MD_CTX_new"), FunctionDescriptor.of(ADDRESS));
        mdCtxFree = linker.downcallHandle(find(lib, "EVP_MD_CTX_free"), FunctionDescriptor.ofVoid(ADDRESS));
        digestSignInit = linker.downcallHandle(find(lib, "EVP_DigestSignInit"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        digestSign = linker.downcallHandle(find(lib, "EVP_DigestSign"), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        setPadding = linker.downcallHandle(find(lib, "EVP_PKEY_CTX_set_rsa_padding"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        setSaltLen = linker.downcallHandle(find(lib, "EVP_PKEY_CTX_set_rsa_pss_saltlen"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        clearError = linker.downcallHandle(find(lib, "ERR_clear_error"), FunctionDescriptor.ofVoid());
        // one handle for the four digests: each downcall handle costs a few milliseconds to link at start-up
        MethodHandle byName = linker.downcallHandle(find(lib, "EVP_get_digestbyname"), FunctionDescriptor.of(ADDRESS, ADDRESS));
        sha1 = digest(byName, "SHA1");
        sha256 = digest(byName, "SHA256");
        sha384 = digest(byName, "SHA384");
        sha512 = digest(byName, "SHA512");
    }

    /** The calls of raw RSA decryption (RSA key exchange, rare): linked at the first one. */
    private record Decryption(MethodHandle ctxNew, MethodHandle ctxFree, MethodHandle init, MethodHandle decrypt) {
    }

    private Decryption decryption() {
        Decryption d = decryption;
        if (d == null) {
            d = new Decryption(linker.downcallHandle(find(lib, "EVP_PKEY_CTX_new"), FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS)),
                    linker.downcallHandle(find(lib, "EVP_PKEY_CTX_free"), FunctionDescriptor.ofVoid(ADDRESS)),
                    linker.downcallHandle(find(lib, "EVP_PKEY_decrypt_init"), FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                    linker.downcallHandle(find(lib, "EVP_PKEY_decrypt"), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG)));
            decryption = d;
        }
        return d;
    }

    private static SystemRsa load() {
        if (!"openssl".equals(System.getProperty("sluice.tls.rsa", "openssl")) || !System.getProperty("os.name", "").startsWith("Linux")) {
            return null;
        }
        try {
            return new SystemRsa(SymbolLookup.libraryLookup("libcrypto.so.3", Arena.global()), Linker.nativeLinker());
        } catch (Throwable e) {
            // no library, an old one, or no native access: BoringSSL signs
            return null;
        }
    }

    private static MemorySegment find(SymbolLookup lib, String name) {
        return lib.find(name).orElseThrow(() -> new UnsupportedOperationException("libcrypto.so.3 has no " + name));
    }

    private static MemorySegment digest(MethodHandle byName, String name) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment md = (MemorySegment) byName.invokeExact(a.allocateFrom(name));
            if (md.equals(MemorySegment.NULL)) {
                throw new UnsupportedOperationException("libcrypto.so.3 has no " + name);
            }
            return md;
        }
    }

    /** OpenSSL's version text, as {@code OpenSSL_version(OPENSSL_VERSION)} gives it (linked when first asked). */
    String version() {
        String v = version;
        if (v == null) {
            try {
                MethodHandle text = linker.downcallHandle(find(lib, "OpenSSL_version"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
                v = ((MemorySegment) text.invokeExact(0)).reinterpret(256).getString(0);
            } catch (Throwable e) {
                v = "OpenSSL 3";
            }
            version = v;
        }
        return v;
    }

    /** {@code key} in OpenSSL's memory. */
    Key importKey(RSAPrivateCrtKey key) {
        byte[] der = key.getEncoded();
        if (der == null) {
            throw new IllegalArgumentException("the RSA key cannot be encoded");
        }
        MemorySegment pkey;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bytes = a.allocateFrom(JAVA_BYTE, der);
            MemorySegment cursor = a.allocateFrom(ADDRESS, bytes);
            pkey = (MemorySegment) d2iAutoPrivateKey.invokeExact(MemorySegment.NULL, cursor, (long) der.length);
            bytes.fill((byte) 0);
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
        java.util.Arrays.fill(der, (byte) 0);
        if (pkey.equals(MemorySegment.NULL)) {
            clearErrors();
            throw new IllegalArgumentException("libcrypto refused the RSA key");
        }
        int size = (key.getModulus().bitLength() + 7) / 8;
        return new Key(this, pkey, size);
    }

    /** An imported key; its native memory is freed once it is unreachable. */
    static final class Key {
        private final SystemRsa lib;
        private final MemorySegment pkey;
        private final int size;

        private Key(SystemRsa lib, MemorySegment pkey, int size) {
            this.lib = lib;
            this.pkey = pkey;
            this.size = size;
            MethodHandle free = lib.pkeyFree;
            CLEANER.register(this, () -> {
                try {
                    free.invokeExact(pkey);
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        /**
         * Signs {@code message} with PKCS#1 v1.5 ({@code pss} false) or PSS (salt as long as the digest, MGF1 with the
         * same digest, as TLS's rsa_pss_rsae schemes) over digest {@code bits} (1 for SHA-1, else 256, 384 or 512).
         */
        byte[] sign(int bits, boolean pss, byte[] message) throws SignatureException {
            SystemRsa l = lib;
            MemorySegment md = switch (bits) {
                case 1 -> l.sha1;
                case 256 -> l.sha256;
                case 384 -> l.sha384;
                case 512 -> l.sha512;
                default -> throw new SignatureException("no SHA-" + bits);
            };
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ctx = (MemorySegment) l.mdCtxNew.invokeExact();
                if (ctx.equals(MemorySegment.NULL)) {
                    throw new SignatureException("EVP_MD_CTX_new failed");
                }
                try {
                    MemorySegment pctx = a.allocate(ADDRESS);
                    if ((int) l.digestSignInit.invokeExact(ctx, pctx, md, MemorySegment.NULL, pkey) != 1) {
                        throw l.failure("EVP_DigestSignInit");
                    }
                    MemorySegment kctx = pctx.get(ADDRESS, 0);
                    if (pss && ((int) l.setPadding.invokeExact(kctx, PSS) != 1 || (int) l.setSaltLen.invokeExact(kctx, SALT_DIGEST) != 1)) {
                        throw l.failure("PSS parameters");
                    }
                    MemorySegment in = a.allocateFrom(JAVA_BYTE, message);
                    MemorySegment out = a.allocate(size);
                    MemorySegment outLen = a.allocateFrom(JAVA_LONG, size);
                    if ((int) l.digestSign.invokeExact(ctx, out, outLen, in, (long) message.length) != 1) {
                        throw l.failure("EVP_DigestSign");
                    }
                    return out.asSlice(0, outLen.get(JAVA_LONG, 0)).toArray(JAVA_BYTE);
                } finally {
                    l.mdCtxFree.invokeExact(ctx);
                }
            } catch (SignatureException e) {
                throw e;
            } catch (Throwable e) {
                throw new SignatureException(e);
            }
        }

        /** Raw RSA decryption (no padding removed: the TLS library checks it), for RSA key exchange. */
        byte[] decrypt(byte[] input) throws SignatureException {
            SystemRsa l = lib;
            Decryption d = l.decryption();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ctx = (MemorySegment) d.ctxNew().invokeExact(pkey, MemorySegment.NULL);
                if (ctx.equals(MemorySegment.NULL)) {
                    throw new SignatureException("EVP_PKEY_CTX_new failed");
                }
                try {
                    if ((int) d.init().invokeExact(ctx) != 1 || (int) l.setPadding.invokeExact(ctx, NO_PADDING) != 1) {
                        throw l.failure("EVP_PKEY_decrypt_init");
                    }
                    MemorySegment in = a.allocateFrom(JAVA_BYTE, input);
                    MemorySegment out = a.allocate(size);
                    MemorySegment outLen = a.allocateFrom(JAVA_LONG, size);
                    if ((int) d.decrypt().invokeExact(ctx, out, outLen, in, (long) input.length) != 1) {
                        throw l.failure("EVP_PKEY_decrypt");
                    }
                    return out.asSlice(0, outLen.get(JAVA_LONG, 0)).toArray(JAVA_BYTE);
                } finally {
                    d.ctxFree().invokeExact(ctx);
                }
            } catch (SignatureException e) {
                throw e;
            } catch (Throwable e) {
                throw new SignatureException(e);
            }
        }
    }

    private SignatureException failure(String what) {
        clearErrors();
        return new SignatureException("libcrypto: " + what + " failed");
    }

    private void clearErrors() {
        try {
            clearError.invokeExact();
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
