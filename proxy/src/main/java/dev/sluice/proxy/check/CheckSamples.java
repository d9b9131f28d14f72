package dev.sluice.proxy.check;

import dev.sluice.config.LogFormats;
import dev.sluice.config.model.LogFormat;
import dev.sluice.proxy.rules.Converter;
import dev.sluice.proxy.rules.Converters;
import dev.sluice.proxy.rules.Fetch;
import dev.sluice.proxy.rules.Fetches;
import dev.sluice.proxy.rules.RuleCompiler;
import dev.sluice.proxy.rules.SampleArgs;
import dev.sluice.proxy.rules.Samples;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Sample expressions and log-format strings of tcp-check rules ({@code send-lf}, {@code string-lf}, {@code on-success},
 * {@code on-error}, {@code status-code}, {@code set-var}, {@code connect port <expr>}), compiled once per backend. They
 * read a {@link CheckSession}: what the server sent ({@code res.payload(<offset>,<length>)}, {@code res.len}) and the
 * variables, besides the fetches that need no traffic ({@code str}, {@code int}, {@code var}, {@code date}...); the
 * rule set converters plus {@code htonl}, {@code cut_crlf}, {@code ltrim}, {@code rtrim}. Immutable.
 */
final class CheckSamples {
    private CheckSamples() {
    }

    /** A compiled expression: the sample for a session, or null when there is none. */
    @FunctionalInterface
    interface Value {
        Object get(CheckSession s);
    }

    /** The rule set's fetches that read nothing of a stream, usable in checks as they are. */
    private static final Set<String> GENERIC = Set.of("var", "str", "int", "bool", "always_true", "always_false", "env", "be_name");

    /** Compiles {@code fetch(args),conv(args)...}; throws {@link IllegalArgumentException} with HAProxy's words. */
    static Value compile(String expr) {
        return compile(expr, false);
    }

    /**
     * {@link #compile(String)}; {@code http}: for an HTTP check, whose response's status line and header fields the
     * response fetches read ({@code status}, {@code res.hdr}, {@code res.fhdr}, {@code res.hdr_cnt}, {@code res.ver}).
     */
    static Value compile(String expr, boolean http) {
        List<SampleArgs.Call> calls = SampleArgs.parse(expr);
        SampleArgs.Call f = calls.get(0);
        Value v = fetch(f, expr, http);
        for (int i = 1; i < calls.size(); i++) {
            v = convert(v, calls.get(i));
        }
        return v;
    }

    private static Value fetch(SampleArgs.Call f, String expr, boolean http) {
        List<String> a = f.args();
        switch (f.name()) {
            case "res.payload", "req.payload" -> {
                arguments(f, 2, 2);
                int off = intArg(f, a.get(0));
                int len = intArg(f, a.get(1));
                return s -> s.payload(off, len);
            }
            case "res.len", "req.len" -> {
                arguments(f, 0, 0);
                return s -> (long) s.length();
            }
            case "date" -> {
                arguments(f, 0, 2);
                long offset = a.isEmpty() || a.get(0).isEmpty() ? 0 : intArg(f, a.get(0));
                return s -> System.currentTimeMillis() / 1000 + offset;
            }
            default -> {
            }
        }
        if (!GENERIC.contains(f.name())) {
            Fetches.Def d = Fetches.get(f.name());
            if (d != null && !(http && d.response())) {
                throw new IllegalArgumentException(" fetch method '" + expr + "' extracts information from '" + (d.response() ? "HTTP response headers"
                        : "HTTP request headers") + "', none of which is available here");
            }
        }
        // unknown names get the rule set's message
        String call = expr.substring(0, prefixLength(expr));
        Fetch fetch = RuleCompiler.sample(call);
        return s -> fetch.get(s);
    }

    /** The length of the fetch call at the start of {@code expr} (up to the first converter). */
    private static int prefixLength(String expr) {
        int depth = 0;
        char quote = 0;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\\') {
                i++;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                return i;
            }
        }
        return expr.length();
    }

    private static Value convert(Value in, SampleArgs.Call c) {
        List<String> a = c.args();
        switch (c.name()) {
            case "htonl" -> {
                arguments(c, 0, 0);
                return s -> {
                    Long n = Samples.integer(in.get(s));
                    if (n == null) {
                        return null;
                    }
                    int v = (int) (long) n;
                    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
                };
            }
            case "cut_crlf" -> {
                arguments(c, 0, 0);
                return s -> {
                    byte[] b = Samples.bytes(in.get(s));
                    if (b == null) {
                        return null;
                    }
                    int i = 0;
                    while (i < b.length && b[i] != '\r' && b[i] != '\n') {
                        i++;
                    }
                    return i == b.length ? b : Arrays.copyOf(b, i);
                };
            }
            case "ltrim", "rtrim" -> {
                arguments(c, 1, 1);
                String set = a.get(0);
                boolean left = c.name().equals("ltrim");
                return s -> {
                    byte[] b = Samples.bytes(in.get(s));
                    if (b == null) {
                        return null;
                    }
                    int from = 0;
                    int to = b.length;
                    if (left) {
                        while (from < to && set.indexOf(b[from] & 0xff) >= 0) {
                            from++;
                        }
                    } else {
                        while (to > from && set.indexOf(b[to - 1] & 0xff) >= 0) {
                            to--;
                        }
                    }
                    return Arrays.copyOfRange(b, from, to);
                };
            }
            default -> {
            }
        }
        Converters.Def d = Converters.get(c.name());
        if (d == null) {
            throw new IllegalArgumentException("unknown converter '" + c.name() + "'");
        }
        if (a.size() < d.minArgs() || a.size() > d.maxArgs()) {
            throw new IllegalArgumentException("converter '" + c.name() + "' expects between " + d.minArgs() + " and " + d.maxArgs() + " arguments");
        }
        Converter conv = d.build().apply(a);
        return s -> {
            Object v = in.get(s);
            return v == null ? null : conv.apply(s, v);
        };
    }

    private static void arguments(SampleArgs.Call c, int min, int max) {
        int n = c.args().size();
        if (n < min || n > max) {
            throw new IllegalArgumentException("'" + c.name() + "' expects " + (min == max ? Integer.toString(min) : min + " to " + max)
                    + " argument(s), got " + n);
        }
    }

    private static int intArg(SampleArgs.Call c, String v) {
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid integer argument '" + v + "' to '" + c.name() + "'");
        }
    }

    /** The text of a sample in a log-format string: its bytes as chars, up to a NUL (HAProxy copies a C string). */
    static String text(Object v) {
        CharSequence s = Samples.str(v);
        if (s == null) {
            return "";
        }
        String t = s.toString();
        int nul = t.indexOf('\0');
        return nul < 0 ? t : t.substring(0, nul);
    }

    /** A log-format string of a check rule, compiled: literal text and samples, spaces kept as HAProxy writes them. */
    static final class Format {
        private final Object[] parts;

        private Format(Object[] parts) {
            this.parts = parts;
        }

        /** Compiles {@code text}; throws {@link IllegalArgumentException} with HAProxy's words. */
        static Format compile(String text) {
            return compile(text, false);
        }

        /** {@link #compile(String)}; {@code http}: with the response fetches of an HTTP check. */
        static Format compile(String text, boolean http) {
            LogFormat f = LogFormats.parse(text, true);
            List<LogFormat.Node> nodes = f.nodes();
            Object[] parts = new Object[nodes.size()];
            for (int i = 0; i < parts.length; i++) {
                LogFormat.Node n = nodes.get(i);
                parts[i] = switch (n) {
                    case LogFormat.Literal l -> l.text();
                    case LogFormat.Separator sep -> sep;
                    case LogFormat.Sample smp -> {
                        try {
                            yield CheckSamples.compile(smp.expr(), http);
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("failed to parse sample expression <" + smp.expr() + "]> : " + e.getMessage().strip());
                        }
                    }
                    case LogFormat.Variable v -> throw new IllegalArgumentException("format variable '%" + v.name() + "' is not available in health"
                            + " checks (Sluice)");
                };
            }
            return new Format(parts);
        }

        /** The rendered text, one char per byte. */
        String render(CheckSession s) {
            StringBuilder b = new StringBuilder(64);
            boolean lastSpace = false;
            for (Object p : parts) {
                if (p instanceof String t) {
                    b.append(t);
                    lastSpace = false;
                } else if (p instanceof Value v) {
                    b.append(text(v.get(s)));
                    lastSpace = false;
                } else if (!lastSpace) {
                    b.append(' ');
                    lastSpace = true;
                }
            }
            return b.toString();
        }
    }
}
