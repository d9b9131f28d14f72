package dev.sluice.proxy.rules;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HAProxy 2.6's converters beyond {@link Converters}' first set: binary and integer ones (sample.c), digests and MACs
 * (ssl_sample.c, on the JDK's providers), text ones (http_conv.c). Registered by {@link Converters}.
 */
final class ConvertersMore {
    private ConvertersMore() {
    }

    static void register() {
        Converters.def("length", 0, 0, a -> (t, v) -> (long) Samples.str(v).length());
        Converters.def("iif", 2, 2, a -> (t, v) -> Samples.bool(v) ? a.get(0) : a.get(1));
        Converters.def("even", 0, 0, a -> (t, v) -> int1(v, x -> (x & 1) == 0));
        Converters.def("odd", 0, 0, a -> (t, v) -> int1(v, x -> (x & 1) == 1));
        Converters.def("cpl", 0, 0, a -> (t, v) -> {
            Long l = Samples.integer(v);
            return l == null ? null : ~l;
        });
        Converters.def("and", 1, 1, a -> Converters.arith(a.get(0), (x, y) -> x & y));
        Converters.def("or", 1, 1, a -> Converters.arith(a.get(0), (x, y) -> x | y));
        Converters.def("xor", 1, 1, a -> Converters.arith(a.get(0), (x, y) -> x ^ y));
        Converters.def("htonl", 0, 0, a -> (t, v) -> {
            Long l = Samples.integer(v);
            if (l == null) {
                return null;
            }
            int n = (int) (long) l;
            return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
        });
        Converters.def("cut_crlf", 0, 0, a -> (t, v) -> {
            String s = Samples.str(v).toString();
            int i = 0;
            while (i < s.length() && s.charAt(i) != '\r' && s.charAt(i) != '\n') {
                i++;
            }
            return s.substring(0, i);
        });
        Converters.def("ltrim", 1, 1, a -> (t, v) -> {
            String s = Samples.str(v).toString();
            int i = 0;
            while (i < s.length() && a.get(0).indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            return s.substring(i);
        });
        Converters.def("rtrim", 1, 1, a -> (t, v) -> {
            String s = Samples.str(v).toString();
            int i = s.length();
            while (i > 0 && a.get(0).indexOf(s.charAt(i - 1)) >= 0) {
                i--;
            }
            return s.substring(0, i);
        });
        Converters.def("add_item", 2, 3, a -> {
            String delim = a.get(0);
            String var = a.get(1).isEmpty() ? null : Vars.name(a.get(1));
            String suffix = a.size() > 2 ? a.get(2) : "";
            return (t, v) -> {
                String in = Samples.str(v).toString();
                Object x = var == null ? null : t.vars().get(var);
                String xs = x == null ? null : Samples.str(x).toString();
                StringBuilder sb = new StringBuilder(in);
                if (!in.isEmpty() && (xs != null && !xs.isEmpty() || !suffix.isEmpty())) {
                    sb.append(delim);
                }
                if (xs != null) {
                    sb.append(xs);
                }
                return sb.append(suffix).toString();
            };
        });
        Converters.def("be2dec", 2, 3, a -> {
            String sep = a.get(0);
            int chunk = Integer.parseInt(a.get(1));
            int truncate = a.size() > 2 ? Integer.parseInt(a.get(2)) : 0;
            if (chunk <= 0 || chunk > 8) {
                throw new IllegalArgumentException("chunk_size out of [1..8] range (" + chunk + ")");
            }
            if (truncate != 0 && truncate != 1) {
                throw new IllegalArgumentException("Unsupported truncate value (" + truncate + ")");
            }
            return (t, v) -> {
                byte[] b = Samples.bytes(v);
                int last = truncate != 0 ? b.length - chunk + 1 : b.length;
                StringBuilder sb = new StringBuilder();
                for (int p = 0; p < last;) {
                    if (p > 0) {
                        sb.append(sep);
                    }
                    long n = 0;
                    for (int i = 0; i < chunk && p < b.length; i++) {
                        n = (n << 8) + (b[p++] & 0xff);
                    }
                    sb.append(Long.toUnsignedString(n));
                }
                return sb.toString();
            };
        });
        Converters.def("be2hex", 0, 3, a -> {
            String sep = a.isEmpty() ? "" : a.get(0);
            int chunkArg = a.size() > 1 ? Integer.parseInt(a.get(1)) : 1;
            int truncate = a.size() > 2 ? Integer.parseInt(a.get(2)) : 0;
            if (chunkArg < 0) {
                throw new IllegalArgumentException("chunk_size must be positive (" + chunkArg + ")");
            }
            if (truncate != 0 && truncate != 1) {
                throw new IllegalArgumentException("Unsupported truncate value (" + truncate + ")");
            }
            return (t, v) -> {
                byte[] b = Samples.bytes(v);
                int chunk = sep.isEmpty() && truncate == 0 ? b.length : chunkArg;
                int last = truncate != 0 ? b.length - chunkArg + 1 : b.length;
                StringBuilder sb = new StringBuilder();
                for (int p = 0; p < last;) {
                    if (p > 0) {
                        sb.append(sep);
                    }
                    for (int i = 0; i < chunk && p < b.length; i++) {
                        int c = b[p++] & 0xff;
                        sb.append(HEX[c >> 4]).append(HEX[c & 0xf]);
                    }
                    if (chunk == 0) {
                        break;
                    }
                }
                return sb.toString();
            };
        });
        Converters.def("ub64enc", 0, 0, a -> (t, v) -> Base64.getUrlEncoder().withoutPadding().encodeToString(Samples.bytes(v)));
        // http_conv.c: the sample (as a string) into the frontend's capture slot, cut to its length; passed on unchanged,
        // no sample when the slot does not exist
        for (boolean response : new boolean[] {false, true}) {
            Converters.def(response ? "capture-res" : "capture-req", 1, 1, a -> {
                int slot = Integer.parseInt(a.get(0));
                return (t, v) -> {
                    String s = Samples.str(v).toString();
                    return t instanceof RuleTarget r && r.capture(response, slot, s) ? s : null;
                };
            });
        }
        Converters.def("ub64dec", 0, 0, a -> (t, v) -> {
            String s = Samples.str(v).toString();
            return Samples.base64url(s.endsWith("=") ? s.replaceAll("=+$", "") : s);
        });
        Converters.def("url_enc", 0, 1, a -> {
            if (!a.isEmpty() && !a.get(0).isEmpty() && !a.get(0).equals("query")) {
                throw new IllegalArgumentException("Unexpected encode type. Allowed value is 'query'");
            }
            return (t, v) -> urlEncode(Samples.bytes(v));
        });
        Converters.def("sha1", 0, 0, a -> digest("SHA-1"));
        Converters.def("sha2", 0, 1, a -> {
            int bits = a.isEmpty() ? 256 : Integer.parseInt(a.get(0));
            if (bits != 224 && bits != 256 && bits != 384 && bits != 512) {
                throw new IllegalArgumentException("Unsupported number of bits: '" + bits + "'.");
            }
            return digest("SHA-" + bits);
        });
        Converters.def("digest", 1, 1, a -> {
            java.util.function.Supplier<org.bouncycastle.crypto.Digest> other = otherDigest(a.get(0));
            return other != null ? digest(other) : digest(jdkDigest(a.get(0)));
        });
        Converters.def("hmac", 2, 2, a -> hmac(a.get(0), a.get(1)));
        Converters.def("secure_memcmp", 1, 1, a -> {
            String var = Vars.name(a.get(0));
            return (t, v) -> {
                Object o = t.vars().get(var);
                return o != null && MessageDigest.isEqual(Samples.bytes(v), Samples.bytes(o));
            };
        });
        Converters.def("crc32c", 0, 1, a -> {
            boolean avalanche = !a.isEmpty() && a.get(0).equals("1");
            return (t, v) -> {
                CRC32C c = new CRC32C();
                c.update(Samples.bytes(v));
                int x = (int) c.getValue();
                return (avalanche ? Hashes.fullAvalanche(x) : x) & 0xffffffffL;
            };
        });
        Converters.def("xxh32", 0, 1, a -> {
            int seed = a.isEmpty() ? 0 : (int) Long.parseLong(a.get(0));
            return (t, v) -> XxHash.xxh32(Samples.bytes(v), seed) & 0xffffffffL;
        });
        // HAProxy's seed: the argument as an unsigned 64-bit value, 0 without one; the hash as a signed integer
        Converters.def("xxh3", 0, 1, a -> {
            long seed = a.isEmpty() ? 0 : Long.parseLong(a.get(0));
            return (t, v) -> Xxh3.hash(Samples.bytes(v), seed);
        });
        Converters.def("xxh64", 0, 1, a -> {
            long seed = a.isEmpty() ? 0 : Long.parseLong(a.get(0));
            return (t, v) -> XxHash.xxh64(Samples.bytes(v), seed);
        });
        Converters.def("debug", 0, 2, a -> (t, v) -> v);
        Converters.def("unset-var", 1, 1, a -> {
            String var = Vars.name(a.get(0));
            return (t, v) -> {
                t.vars().remove(var);
                return v;
            };
        });
        Converters.def("http_date", 0, 2, a -> {
            long offset = a.isEmpty() || a.get(0).isEmpty() ? 0 : Long.parseLong(a.get(0));
            String unit = a.size() > 1 ? a.get(1) : "s";
            long div = switch (unit) {
                case "s" -> 1;
                case "ms" -> 1000;
                case "us" -> 1000000;
                default -> throw new IllegalArgumentException("Invalid unit, expecting 's', 'ms' or 'us'.");
            };
            return (t, v) -> {
                Long l = Samples.integer(v);
                return l == null ? null : TimeFormat.httpDate(l + offset, div);
            };
        });
        Converters.def("ltime", 1, 2, a -> time(a, false));
        Converters.def("utime", 1, 2, a -> time(a, true));
        Converters.def("language", 1, 2, a -> {
            String[] langs = a.get(0).split(";", -1);
            String dflt = a.size() > 1 ? a.get(1) : null;
            return (t, v) -> {
                String r = language(Samples.str(v).toString(), langs);
                return r != null ? r : dflt;
            };
        });
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private interface LongPred {
        boolean test(long x);
    }

    private static Object int1(Object v, LongPred p) {
        Long l = Samples.integer(v);
        return l == null ? null : p.test(l);
    }

    /** RFC 3986's unreserved characters are kept, everything else is {@code %XX} (HAProxy's query_encode_map). */
    static String urlEncode(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length);
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return sb.toString();
    }

    /** OpenSSL's digest names ({@code sha256}, {@code SHA-256}, {@code md5}, {@code sha3-256}...) as the JDK names them. */
    static String jdkDigest(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        String jdk = switch (n) {
            case "MD5" -> "MD5";
            case "SHA1", "SHA-1" -> "SHA-1";
            case "SHA224", "SHA-224" -> "SHA-224";
            case "SHA256", "SHA-256" -> "SHA-256";
            case "SHA384", "SHA-384" -> "SHA-384";
            case "SHA512", "SHA-512" -> "SHA-512";
            case "SHA512-224", "SHA-512/224" -> "SHA-512/224";
            case "SHA512-256", "SHA-512/256" -> "SHA-512/256";
            case "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512" -> n;
            default -> null;
        };
        if (jdk == null) {
            throw new IllegalArgumentException("couldn't get message digest '" + name + "'");
        }
        return jdk;
    }

    /**
     * Digests OpenSSL has and the JDK does not ({@code blake2b512}, {@code blake2s256}, {@code ripemd160}, {@code sm3}),
     * from Bouncy Castle; null for another name.
     */
    static java.util.function.Supplier<org.bouncycastle.crypto.Digest> otherDigest(String name) {
        return switch (name.toUpperCase(Locale.ROOT)) {
            case "BLAKE2B512" -> () -> new org.bouncycastle.crypto.digests.Blake2bDigest(512);
            case "BLAKE2S256" -> () -> new org.bouncycastle.crypto.digests.Blake2sDigest(256);
            case "RIPEMD160", "RIPEMD-160", "RMD160" -> org.bouncycastle.crypto.digests.RIPEMD160Digest::new;
            case "SM3" -> org.bouncycastle.crypto.digests.SM3Digest::new;
            default -> null;
        };
    }

    private static Converter digest(java.util.function.Supplier<org.bouncycastle.crypto.Digest> make) {
        return (t, v) -> {
            org.bouncycastle.crypto.Digest d = make.get();
            byte[] in = Samples.bytes(v);
            d.update(in, 0, in.length);
            byte[] out = new byte[d.getDigestSize()];
            d.doFinal(out, 0);
            return out;
        };
    }

    private static Converter digest(String alg) {
        try {
            MessageDigest.getInstance(alg);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("couldn't get message digest '" + alg + "'");
        }
        return (t, v) -> {
            try {
                return MessageDigest.getInstance(alg).digest(Samples.bytes(v));
            } catch (GeneralSecurityException e) {
                return null;
            }
        };
    }

    /** {@code hmac(<alg>,<key>)}: the key is base64, given as a string or a variable ({@code txn.key}). */
    private static Converter hmac(String alg, String key) {
        String mac = "Hmac" + jdkDigest(alg).replace("-", "").replace("/", "");
        try {
            Mac.getInstance(mac);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("couldn't get message digest '" + alg + "'");
        }
        Vars.Ref<byte[]> ref = Vars.Ref.of(key, Samples::base64);
        if (!ref.valid()) {
            throw new IllegalArgumentException("failed to base64 decode the key");
        }
        return (t, v) -> {
            byte[] k = ref.get(t);
            if (k == null) {
                return null;
            }
            try {
                Mac m = Mac.getInstance(mac);
                m.init(new SecretKeySpec(k.length == 0 ? new byte[1] : k, mac));
                return m.doFinal(Samples.bytes(v));
            } catch (GeneralSecurityException e) {
                return null;
            }
        };
    }

    private static Converter time(List<String> a, boolean utc) {
        String format = a.get(0);
        long offset = a.size() > 1 ? Long.parseLong(a.get(1)) : 0;
        return (t, v) -> {
            Long l = Samples.integer(v);
            return l == null ? null : TimeFormat.strftime(format, l + offset, utc);
        };
    }

    /** The configured language ({@code langs}) the {@code Accept-Language} value prefers most, or null. */
    static String language(String al, String[] langs) {
        String best = null;
        int bestQ = 0;
        for (String part : al.split(",")) {
            String[] p = part.split(";");
            String token = p[0].strip();
            if (token.isEmpty()) {
                continue;
            }
            String match = null;
            for (String w : langs) {
                if (rangeMatches(token, w)) {
                    match = w;
                    break;
                }
            }
            if (match == null) {
                continue;
            }
            int q = 1000;
            if (p.length > 1) {
                String qs = p[1].strip();
                if (qs.startsWith("q")) {
                    qs = qs.substring(1).strip();
                    if (qs.startsWith("=")) {
                        q = qvalue(qs.substring(1).strip());
                    }
                }
            }
            if (q > bestQ) {
                best = match;
                bestQ = q;
                if (q >= 1000) {
                    break;
                }
            }
        }
        return best;
    }

    /** http.h's http_language_range_match: the header's range equals the tag, or starts with it and a '-' (case counts). */
    private static boolean rangeMatches(String range, String tag) {
        return range.equals(tag) || range.startsWith(tag) && range.charAt(tag.length()) == '-';
    }

    /** HAProxy's http_parse_qvalue: "1", "1.000", "0.xyz" as thousandths. */
    private static int qvalue(String s) {
        if (s.isEmpty()) {
            return 0;
        }
        if (s.charAt(0) == '1') {
            return 1000;
        }
        if (s.charAt(0) != '0') {
            return 0;
        }
        int q = 0;
        int mul = 100;
        for (int i = 2; i < s.length() && i < 5 && s.charAt(1) == '.' && Character.isDigit(s.charAt(i)); i++) {
            q += (s.charAt(i) - '0') * mul;
            mul /= 10;
        }
        return q;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
