package dev.sluice.proxy.rules;

import dev.sluice.config.LogFormats;
import dev.sluice.config.model.LogFormat;
import java.util.List;

/**
 * A value of a rule ({@code set-header X %[src]}, {@code redirect location /x%[path]}) compiled from
 * HAProxy's log-format syntax: literal text, {@code %[sample]} expressions and the variables that make
 * sense outside a log line. Immutable; rendering allocates one string.
 */
public final class Template {
    private interface Part {
        void append(StringBuilder sb, Txn t);
    }

    private final Part[] parts;
    private final String constant;
    /** Whether a space before the first word is dropped (unique ids), or kept (rule values). */
    private final boolean dropLeadingSpace;

    private Template(Part[] parts, String constant) {
        this(parts, constant, false);
    }

    private Template(Part[] parts, String constant, boolean dropLeadingSpace) {
        this.parts = parts;
        this.constant = constant;
        this.dropLeadingSpace = dropLeadingSpace;
    }

    /**
     * Compiles a {@code unique-id-format}: as {@link #compile}, except that HAProxy 2.6 drops a space before the
     * first word of a unique id ({@code %{+X}o\ %ci} starts with the address), where rule values keep it.
     */
    public static Template uniqueId(String text) {
        Template t = compile(text);
        return t.parts == null ? t : new Template(t.parts, null, true);
    }

    /** A template that is exactly {@code text} (no format interpretation: {@code string} bodies). */
    public static Template literal(String text) {
        return new Template(null, text);
    }

    /** True for a template that always renders the empty string. */
    public boolean isEmpty() {
        return parts == null && constant.isEmpty();
    }

    /** Compiles {@code text}; throws {@link IllegalArgumentException} for a bad expression or variable. */
    public static Template compile(String text) {
        if (text.indexOf('%') < 0) {
            return new Template(null, text);
        }
        LogFormat f = LogFormats.parse(text, true);
        List<LogFormat.Node> nodes = f.nodes();
        Part[] parts = new Part[nodes.size()];
        for (int i = 0; i < parts.length; i++) {
            LogFormat.Node n = nodes.get(i);
            if (n instanceof LogFormat.Literal l) {
                String s = l.text();
                parts[i] = (sb, t) -> sb.append(s);
            } else if (n instanceof LogFormat.Separator) {
                parts[i] = SEPARATOR;
            } else if (n instanceof LogFormat.Sample s) {
                SampleExpr e = RuleCompiler.sample(s.expr());
                boolean quote = s.quote();
                parts[i] = (sb, t) -> {
                    CharSequence v = Samples.str(e.get(t));
                    if (quote) {
                        sb.append('"');
                    }
                    if (v != null) {
                        sb.append(v);
                    }
                    if (quote) {
                        sb.append('"');
                    }
                };
            } else if (n instanceof LogFormat.Variable v) {
                parts[i] = v.hex() ? hexVariable(v.name()) : variable(v.name());
            }
        }
        return new Template(parts, null);
    }

    /**
     * A space between words: HAProxy's build_logline writes one unless the previous node was a space too; a
     * word that renders empty still counts as a word ("a %[none] b" is "a  b"), a leading space is kept.
     */
    private static final Part SEPARATOR = (sb, t) -> sb.append(' ');

    private static Part variable(String name) {
        return switch (name) {
            // no connection (a global set-var-fmt): nothing, as HAProxy writes
            case "ci" -> (sb, t) -> sb.append(t.clientAddress() == null ? "" : Network.host(t.clientAddress()));
            case "cp" -> (sb, t) -> sb.append(t.clientAddress() == null ? "" : t.clientAddress().getPort());
            case "fi" -> (sb, t) -> sb.append(t.frontendAddress() == null ? "" : Network.host(t.frontendAddress()));
            case "fp" -> (sb, t) -> sb.append(t.frontendAddress() == null ? "" : t.frontendAddress().getPort());
            case "f", "ft" -> (sb, t) -> sb.append(t.frontendName());
            case "b" -> (sb, t) -> sb.append(t.backendName() != null ? t.backendName() : t.frontendName());
            case "HM" -> (sb, t) -> sb.append(t.request().method());
            case "HU" -> (sb, t) -> sb.append(t.request().target());
            case "HP" -> (sb, t) -> sb.append(Fetches.path(t.request(), false));
            case "HPO" -> (sb, t) -> sb.append(Fetches.path(t.request(), false));
            case "HQ" -> (sb, t) -> {
                CharSequence q = Fetches.query(t.request());
                if (q != null) {
                    sb.append('?').append(q);
                }
            };
            case "HV" -> (sb, t) -> sb.append("HTTP/").append(Fetches.version(t.request()));
            case "r" -> (sb, t) -> sb.append(t.request().method()).append(' ').append(t.request().target()).append(" HTTP/")
                    .append(Fetches.version(t.request()));
            case "pid" -> {
                String pid = Long.toString(ProcessHandle.current().pid());
                yield (sb, t) -> sb.append(pid);
            }
            case "H" -> {
                String host = hostname();
                yield (sb, t) -> sb.append(host);
            }
            case "ST" -> (sb, t) -> sb.append(t.response() == null ? 0 : t.response().status());
            case "ID" -> (sb, t) -> {
                String id = t.uniqueId();
                sb.append(id == null ? "-" : id);
            };
            case "Ts" -> (sb, t) -> sb.append(t.requestDate() / 1000);
            case "ms" -> (sb, t) -> {
                long ms = t.requestDate() % 1000;
                sb.append(ms < 10 ? "00" : ms < 100 ? "0" : "").append(ms);
            };
            case "rt" -> (sb, t) -> sb.append(t.requestCounter());
            default -> throw new IllegalArgumentException("format variable '%" + name + "' is not available in rule values");
        };
    }

    /**
     * A variable with the {@code +X} flag, as HAProxy writes it for unique ids: addresses as 8 hex digits,
     * ports and counters as 4 or more, times as 8.
     */
    private static Part hexVariable(String name) {
        return switch (name) {
            case "ci" -> (sb, t) -> hexIp(sb, t.clientAddress());
            case "fi" -> (sb, t) -> hexIp(sb, t.frontendAddress());
            case "cp" -> (sb, t) -> hex(sb, t.clientAddress().getPort(), 4);
            case "fp" -> (sb, t) -> hex(sb, t.frontendAddress().getPort(), 4);
            case "Ts" -> (sb, t) -> hex(sb, t.requestDate() / 1000, 8);
            case "rt" -> (sb, t) -> hex(sb, t.requestCounter(), 4);
            case "pid" -> {
                long pid = ProcessHandle.current().pid();
                yield (sb, t) -> hex(sb, pid, 4);
            }
            default -> variable(name);
        };
    }

    private static void hexIp(StringBuilder sb, java.net.InetSocketAddress a) {
        for (byte b : a.getAddress().getAddress()) {
            hex(sb, b & 0xff, 2);
        }
    }

    private static void hex(StringBuilder sb, long v, int digits) {
        String h = Long.toHexString(v).toUpperCase(java.util.Locale.ROOT);
        for (int i = h.length(); i < digits; i++) {
            sb.append('0');
        }
        sb.append(h);
    }

    private static String hostname() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    public String render(Txn t) {
        if (constant != null) {
            return constant;
        }
        StringBuilder sb = new StringBuilder(32);
        boolean lastSpace = dropLeadingSpace;
        for (Part p : parts) {
            if (p != SEPARATOR) {
                p.append(sb, t);
                lastSpace = false;
            } else if (!lastSpace) {
                p.append(sb, t);
                lastSpace = true;
            }
        }
        return sb.toString();
    }
}
