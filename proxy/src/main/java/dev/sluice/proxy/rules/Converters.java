package dev.sluice.proxy.rules;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/** The converters Sluice implements, by HAProxy name, with their argument counts and builders. Read-only. */
public final class Converters {
    private Converters() {
    }

    /** How a converter is declared. */
    public record Def(String name, int minArgs, int maxArgs, Function<List<String>, Converter> build) {
    }

    private static final Map<String, Def> DEFS = new HashMap<>();

    /** Converter keywords of HAProxy 2.6 that Sluice does not have, with the reason (SampleInventoryTest checks the list). */
    static final Map<String, String> MISSING = Map.ofEntries(
            Map.entry("51d.single", "51Degrees device detection (a proprietary library HAProxy links)"),
            Map.entry("da-csv-conv", "DeviceAtlas device detection (a proprietary library HAProxy links)"));

    static {
        def("lower", 0, 0, a -> (t, v) -> Samples.str(v).toString().toLowerCase(Locale.ROOT));
        def("upper", 0, 0, a -> (t, v) -> Samples.str(v).toString().toUpperCase(Locale.ROOT));
        def("len", 0, 0, a -> (t, v) -> (long) (v instanceof byte[] b ? b.length : Samples.str(v).length()));
        def("bytes", 1, 2, a -> {
            int off = Integer.parseInt(a.get(0));
            int len = a.size() > 1 ? Integer.parseInt(a.get(1)) : -1;
            return (t, v) -> {
                byte[] b = Samples.bytes(v);
                if (off >= b.length) {
                    return null;
                }
                int end = len < 0 ? b.length : Math.min(b.length, off + len);
                return java.util.Arrays.copyOfRange(b, off, end);
            };
        });
        def("regsub", 2, 3, a -> {
            boolean global = a.size() > 2 && a.get(2).contains("g");
            boolean icase = a.size() > 2 && a.get(2).contains("i");
            Pattern p = Pattern.compile(a.get(0), icase ? Pattern.CASE_INSENSITIVE : 0);
            String repl = haproxyReplacement(a.get(1));
            return (t, v) -> {
                Matcher m = p.matcher(Samples.str(v));
                return global ? m.replaceAll(repl) : m.replaceFirst(repl);
            };
        });
        def("field", 2, 3, a -> {
            int idx = Integer.parseInt(a.get(0));
            String delims = a.get(1);
            int count = a.size() > 2 ? Integer.parseInt(a.get(2)) : 1;
            return (t, v) -> field(Samples.str(v).toString(), idx, delims, count, false);
        });
        def("word", 2, 3, a -> {
            int idx = Integer.parseInt(a.get(0));
            String delims = a.get(1);
            int count = a.size() > 2 ? Integer.parseInt(a.get(2)) : 1;
            return (t, v) -> field(Samples.str(v).toString(), idx, delims, count, true);
        });
        def("json", 0, 1, a -> (t, v) -> json(Samples.str(v).toString()));
        def("base64", 0, 0, a -> (t, v) -> Base64.getEncoder().encodeToString(Samples.bytes(v)));
        def("b64dec", 0, 0, a -> (t, v) -> Samples.base64(Samples.str(v).toString()));
        def("hex", 0, 0, a -> (t, v) -> HexFormat.of().withUpperCase().formatHex(Samples.bytes(v)));
        def("hex2i", 0, 0, a -> (t, v) -> {
            try {
                return Long.parseLong(Samples.str(v).toString(), 16);
            } catch (NumberFormatException e) {
                return null;
            }
        });
        def("sdbm", 0, 1, a -> hash(Hashes::sdbm, a));
        def("djb2", 0, 1, a -> hash(Hashes::djb2, a));
        def("wt6", 0, 1, a -> hash(Hashes::wt6, a));
        def("crc32", 0, 1, a -> hash(b -> {
            CRC32 c = new CRC32();
            c.update(b);
            return (int) c.getValue();
        }, a));
        def("ipmask", 1, 2, a -> {
            Network v4 = Network.parse("0.0.0.0/" + a.get(0));
            String m6 = a.size() > 1 ? a.get(1) : null;
            int bits4 = v4.prefix();
            int bits6 = m6 == null ? 128 : Integer.parseInt(m6);
            return (t, v) -> {
                InetAddress ip = Samples.ip(v);
                if (ip == null) {
                    return null;
                }
                byte[] b = ip.getAddress();
                int bits = b.length == 4 ? bits4 : bits6;
                for (int i = 0; i < b.length; i++) {
                    int keep = Math.max(0, Math.min(8, bits - 8 * i));
                    b[i] &= (byte) (0xff << (8 - keep));
                }
                try {
                    return InetAddress.getByAddress(b);
                } catch (java.net.UnknownHostException e) {
                    return null;
                }
            };
        });
        def("add", 1, 1, a -> arith(a.get(0), (x, y) -> x + y));
        def("sub", 1, 1, a -> arith(a.get(0), (x, y) -> x - y));
        def("mul", 1, 1, a -> arith(a.get(0), (x, y) -> x * y));
        def("div", 1, 1, a -> arith(a.get(0), (x, y) -> y == 0 ? Long.MAX_VALUE : x / y));
        def("mod", 1, 1, a -> arith(a.get(0), (x, y) -> y == 0 ? 0 : x % y));
        def("neg", 0, 0, a -> (t, v) -> {
            Long l = Samples.integer(v);
            return l == null ? null : -l;
        });
        def("not", 0, 0, a -> (t, v) -> !Samples.bool(v));
        def("bool", 0, 0, a -> (t, v) -> Samples.bool(v));
        def("url_dec", 0, 1, a -> (t, v) -> {
            try {
                return java.net.URLDecoder.decode(Samples.str(v).toString(), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return null;
            }
        });
        def("host_only", 0, 0, a -> (t, v) -> {
            String s = Samples.str(v).toString();
            if (s.startsWith("[")) {
                int e = s.indexOf(']');
                return e < 0 ? s : s.substring(0, e + 1);
            }
            int c = s.lastIndexOf(':');
            return c < 0 ? s : s.substring(0, c);
        });
        def("port_only", 0, 0, a -> (t, v) -> {
            String s = Samples.str(v).toString();
            int c = s.lastIndexOf(':');
            return c < 0 || s.endsWith("]") ? null : Samples.parseLong(s.substring(c + 1));
        });
        def("concat", 1, 3, a -> (t, v) -> {
            String pre = a.get(0);
            String var = a.size() > 1 ? a.get(1) : "";
            String post = a.size() > 2 ? a.get(2) : "";
            Object x = var.isEmpty() ? "" : t.vars().get(var);
            return pre + Samples.str(v) + (x == null ? "" : Samples.str(x)) + post;
        });
        def("strcmp", 1, 1, a -> (t, v) -> {
            Object o = t.vars().get(a.get(0));
            return o == null ? null : (long) Integer.signum(Samples.str(v).toString().compareTo(Samples.str(o).toString()));
        });
        def("set-var", 1, 1, a -> (t, v) -> {
            t.vars().put(Vars.name(a.get(0)), v);
            return v;
        });
        def("map", 1, 2, a -> MapFile.converter(a.get(0), a.size() > 1 ? a.get(1) : null, "_str", ""));
        for (String kind : new String[] {"_str", "_beg", "_sub", "_dir", "_end", "_reg", "_dom", "_ip", "_int"}) {
            for (String out : new String[] {"", "_int", "_ip"}) {
                def("map" + kind + out, 1, 2, a -> MapFile.converter(a.get(0), a.size() > 1 ? a.get(1) : null, kind, out));
            }
        }
        def("map_regm", 1, 2, a -> MapFile.converter(a.get(0), a.size() > 1 ? a.get(1) : null, "_regm", ""));
        ConvertersMore.register();
        JsonQuery.register();
        AesGcm.register();
        Protobuf.register();
        FixConverters.register();
        MqttConverters.register();
        JwtVerify.register();
    }

    static void def(String name, int min, int max, Function<List<String>, Converter> build) {
        DEFS.put(name, new Def(name, min, max, build));
    }

    public static Def get(String name) {
        return DEFS.get(name);
    }

    public static Set<String> names() {
        return DEFS.keySet();
    }

    interface Arith {
        long apply(long x, long y);
    }

    /**
     * An arithmetic converter's operand, as HAProxy's check_operator reads it: an integer (digits with an optional '-'),
     * or a variable ({@code txn.x}) read at run time; no sample when either side is not an integer.
     */
    static Converter arith(String arg, Arith op) {
        if (arg.matches("-?\\d+")) {
            long n = Long.parseLong(arg);
            return (t, v) -> {
                Long l = Samples.integer(v);
                return l == null ? null : op.apply(l, n);
            };
        }
        String var = Vars.name(arg);
        return (t, v) -> {
            Long l = Samples.integer(v);
            Long y = Samples.integer(t.vars().get(var));
            return l == null || y == null ? null : op.apply(l, y);
        };
    }

    private static Converter hash(Function<byte[], Integer> h, List<String> a) {
        boolean avalanche = !a.isEmpty() && a.get(0).equals("1");
        return (t, v) -> {
            int x = h.apply(Samples.bytes(v));
            if (avalanche) {
                x = Hashes.fullAvalanche(x);
            }
            return x & 0xffffffffL;
        };
    }

    /** HAProxy writes back-references as {@code \1}; Java as {@code $1}. */
    static String haproxyReplacement(String r) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < r.length(); i++) {
            char c = r.charAt(i);
            if (c == '\\' && i + 1 < r.length() && Character.isDigit(r.charAt(i + 1))) {
                sb.append('$').append(r.charAt(++i));
            } else if (c == '$') {
                sb.append("\\$");
            } else if (c == '\\' && i + 1 < r.length()) {
                sb.append("\\\\");
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static String field(String s, int idx, String delims, int count, boolean words) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= s.length(); i++) {
            if (i == s.length() || delims.indexOf(s.charAt(i)) >= 0) {
                String p = s.substring(start, i);
                if (!words || !p.isEmpty()) {
                    parts.add(p);
                }
                start = i + 1;
            }
        }
        int n = parts.size();
        int first = idx > 0 ? idx - 1 : n + idx - (count > 0 ? count - 1 : 0);
        if (idx == 0 || first < 0 || first >= n) {
            return null;
        }
        int last = count <= 0 ? n - 1 : Math.min(n - 1, first + count - 1);
        String sep = delims.isEmpty() ? "" : delims.substring(0, 1);
        return String.join(sep, parts.subList(first, last + 1));
    }

    private static String json(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }

    /** Map files ({@code map(file[,default])}): "key value" lines, # comments. Loaded at start-up. */
    static final class MapFile {
        private MapFile() {
        }

        static Converter converter(String file, String dflt, String kind, String out) {
            List<String[]> entries = new ArrayList<>();
            try {
                for (String line : Files.readAllLines(CompileScope.file(file), StandardCharsets.ISO_8859_1)) {
                    String l = line.strip();
                    if (l.isEmpty() || l.startsWith("#")) {
                        continue;
                    }
                    String[] kv = l.split("\\s+", 2);
                    String value = kv.length > 1 ? kv[1] : "";
                    checkOutput(file, value, out);
                    entries.add(new String[] {kv[0], value});
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("failed to load map file '" + file + "': " + e.getMessage());
            }
            if (dflt != null) {
                checkOutput(file, dflt, out);
            }
            Object dfltOut = output(dflt, out);
            if (kind.equals("_regm")) {
                List<Pattern> regs = new ArrayList<>();
                for (String[] e : entries) {
                    regs.add(Pattern.compile(e[0]));
                }
                return (t, v) -> {
                    String in = Samples.str(v).toString();
                    for (int i = 0; i < regs.size(); i++) {
                        Matcher m = regs.get(i).matcher(in);
                        if (m.find()) {
                            return backrefs(entries.get(i)[1], m);
                        }
                    }
                    return dfltOut;
                };
            }
            if (kind.equals("_str")) {
                Map<String, String> m = new HashMap<>();
                for (String[] e : entries) {
                    m.putIfAbsent(e[0], e[1]);
                }
                return (t, v) -> {
                    String r = m.get(Samples.str(v).toString());
                    return r != null ? output(r, out) : dfltOut;
                };
            }
            Match match = switch (kind) {
                case "_beg" -> Match.BEG;
                case "_sub" -> Match.SUB;
                case "_end" -> Match.END;
                case "_reg" -> Match.REG;
                case "_dom" -> Match.DOM;
                case "_ip" -> Match.IP;
                case "_dir" -> Match.DIR;
                default -> Match.INT;
            };
            List<java.util.function.Predicate<Object>> preds = new ArrayList<>();
            for (String[] e : entries) {
                preds.add(match.compile(List.of(e[0]), false));
            }
            return (t, v) -> {
                for (int i = 0; i < preds.size(); i++) {
                    if (preds.get(i).test(v)) {
                        return output(entries.get(i)[1], out);
                    }
                }
                return dfltOut;
            };
        }

        /** A map value as the converter's output type ({@code _int}, {@code _ip}, or a string). */
        private static Object output(String value, String out) {
            if (value == null) {
                return null;
            }
            return switch (out) {
                case "_int" -> Samples.parseLong(value);
                case "_ip" -> Samples.ip(value);
                default -> value;
            };
        }

        private static void checkOutput(String file, String value, String out) {
            if (out.equals("_int") && !value.strip().matches("[-+]?\\d+") || out.equals("_ip") && Samples.ip(value) == null) {
                throw new IllegalArgumentException("map '" + file + "': unable to parse value '" + value + "' as "
                        + (out.equals("_int") ? "an integer" : "an IP address"));
            }
        }

        /** {@code map_regm}'s value with {@code \\N} replaced by the match's group N. */
        private static String backrefs(String value, Matcher m) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '\\' && i + 1 < value.length() && Character.isDigit(value.charAt(i + 1))) {
                    int g = value.charAt(++i) - '0';
                    if (g <= m.groupCount() && m.group(g) != null) {
                        sb.append(m.group(g));
                    }
                } else {
                    sb.append(c);
                }
            }
            return sb.toString();
        }
    }
}
