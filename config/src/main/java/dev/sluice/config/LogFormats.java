package dev.sluice.config;

import dev.sluice.config.model.LogFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Parses {@code log-format} strings and holds HAProxy's predefined formats. */
public final class LogFormats {
    private LogFormats() {
    }

    /** {@code option httplog}. */
    public static final String HTTPLOG = "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r";
    /** {@code option httplog clf}. */
    public static final String HTTPLOG_CLF = "%{+Q}o %{-Q}ci - - [%trg] %r %ST %B \"\" \"\" %cp %ms %ft %b %s %TR %Tw %Tc %Tr %Ta %tsc %ac %fc"
            + " %bc %sc %rc %sq %bq %CC %CS %hrl %hsl";
    /** {@code option tcplog}. */
    public static final String TCPLOG = "%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %sq/%bq";

    /** The variables Sluice knows, as HAProxy names them. */
    public static final Set<String> VARIABLES = Set.of("ci", "cp", "fi", "fp", "bi", "bp", "si", "sp", "t", "tr", "trg", "trl", "T", "Tl", "Ts", "Ta",
            "Tc", "Td", "Th", "Ti", "Tq", "TR", "Tr", "Tt", "Tu", "Tw", "ST", "B", "U", "CC", "CS", "H", "HM", "HP", "HPO", "HQ", "HU", "HV",
            "ID", "b", "f", "ft", "fc", "bc", "sc", "ac", "rc", "s", "sq", "bq", "ts", "tsc", "r", "hr", "hs", "hrl", "hsl", "pid", "lc", "ms",
            "o", "rt", "sslc", "sslv", "lt");

    /** Compiles a log line format; throws {@link IllegalArgumentException} naming the problem. */
    public static LogFormat parse(String text) {
        return parse(text, false);
    }

    /**
     * Compiles a format; {@code samples} allows {@code %[expr]} (rule values; access logs do not have
     * them yet). Throws {@link IllegalArgumentException} naming the problem.
     */
    public static LogFormat parse(String text, boolean samples) {
        List<LogFormat.Node> nodes = new ArrayList<>();
        StringBuilder lit = new StringBuilder();
        int n = text.length();
        int i = 0;
        // %{...}o sets the flags of every variable after it, as in HAProxy
        boolean defQuote = false;
        boolean defEscape = false;
        boolean defHex = false;
        while (i < n) {
            char c = text.charAt(i);
            if (c == ' ') {
                flush(lit, nodes);
                if (nodes.isEmpty() || !(nodes.get(nodes.size() - 1) instanceof LogFormat.Separator)) {
                    nodes.add(new LogFormat.Separator());
                }
                i++;
                continue;
            }
            if (c != '%') {
                lit.append(c);
                i++;
                continue;
            }
            if (i + 1 < n && text.charAt(i + 1) == '%') {
                lit.append('%');
                i += 2;
                continue;
            }
            i++;
            boolean quote = defQuote;
            boolean escape = defEscape;
            boolean hex = defHex;
            if (i < n && text.charAt(i) == '{') {
                int close = text.indexOf('}', i);
                if (close < 0) {
                    throw new IllegalArgumentException("missing '}' after '%{' in log-format");
                }
                for (String f : text.substring(i + 1, close).split(",")) {
                    switch (f) {
                        case "+Q" -> quote = true;
                        case "-Q" -> quote = false;
                        case "+E" -> escape = true;
                        case "-E" -> escape = false;
                        case "+X" -> hex = true;
                        case "-X" -> hex = false;
                        case "", "+M", "-M", "+bin", "+json", "+cbor" -> {
                        }
                        default -> throw new IllegalArgumentException("unknown log-format flag '" + f + "'");
                    }
                }
                i = close + 1;
            }
            if (i < n && text.charAt(i) == '[') {
                if (!samples) {
                    throw new IllegalArgumentException("sample expressions (%[...]) in log-format are not supported by Sluice yet");
                }
                int depth = 0;
                int close = -1;
                for (int k = i; k < n; k++) {
                    char ch = text.charAt(k);
                    if (ch == '[') {
                        depth++;
                    } else if (ch == ']' && --depth == 0) {
                        close = k;
                        break;
                    }
                }
                if (close < 0) {
                    throw new IllegalArgumentException("missing ']' after '" + text.substring(i + 1) + "'");
                }
                flush(lit, nodes);
                nodes.add(new LogFormat.Sample(text.substring(i + 1, close), quote));
                i = close + 1;
                continue;
            }
            int s = i;
            while (i < n && Character.isLetter(text.charAt(i))) {
                i++;
            }
            String name = text.substring(s, i);
            if (name.isEmpty()) {
                throw new IllegalArgumentException("missing variable name after '%' in log-format");
            }
            if (!VARIABLES.contains(name)) {
                throw new IllegalArgumentException("no such format variable '" + name + "'"
                        + Suggestions.didYouMean(Suggestions.closest(name, VARIABLES)));
            }
            if (name.equals("o")) {
                defQuote = quote;
                defEscape = escape;
                defHex = hex;
                continue;
            }
            flush(lit, nodes);
            nodes.add(new LogFormat.Variable(name, quote, escape, hex));
        }
        flush(lit, nodes);
        return new LogFormat(text, nodes);
    }

    private static void flush(StringBuilder lit, List<LogFormat.Node> nodes) {
        if (!lit.isEmpty()) {
            nodes.add(new LogFormat.Literal(lit.toString()));
            lit.setLength(0);
        }
    }
}
