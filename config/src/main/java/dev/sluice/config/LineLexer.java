package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Splits one configuration line into words with HAProxy's lexical rules: whitespace separates words,
 * {@code #} outside quotes starts a comment, {@code "..."} is weak quoting (environment variables
 * {@code $NAME}, {@code ${NAME}}, {@code ${NAME-default}} and {@code ${NAME[*]}} are expanded, {@code \"}
 * escapes), {@code '...'} is strong quoting (nothing is interpreted), and outside strong quotes the
 * escapes {@code \ \# \\ \' \" \n \r \t \xNN} are decoded while any other backslash is kept as it is
 * (so unquoted regexes like {@code ^/api\.} survive). Quoted parts may be juxtaposed inside one word.
 * Stateless; safe to share.
 */
public final class LineLexer {

    /** The words of a line, or the error that stopped lexing it. */
    public record Result(List<String> words, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    private final Function<String, String> env;

    /** @param env looks up an environment variable, returning null when it is not set */
    public LineLexer(Function<String, String> env) {
        this.env = env;
    }

    public Result split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inWord = false;
        int n = line.length();
        int i = 0;
        while (i < n) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
                if (inWord) {
                    words.add(cur.toString());
                    cur.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '#') {
                break;
            } else if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    return new Result(words, "unmatched quote at position " + (i + 1));
                }
                cur.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                int open = i;
                inWord = true;
                i++;
                boolean closed = false;
                while (i < n) {
                    char d = line.charAt(i);
                    if (d == '"') {
                        closed = true;
                        i++;
                        break;
                    } else if (d == '\\') {
                        i = escape(line, i, cur);
                    } else if (d == '$') {
                        int next = expand(line, i, cur, words);
                        if (next < 0) {
                            return new Result(words, "unterminated '${' in environment variable reference at position " + (i + 1));
                        }
                        i = next;
                    } else {
                        cur.append(d);
                        i++;
                    }
                }
                if (!closed) {
                    return new Result(words, "unmatched quote at position " + (open + 1));
                }
            } else if (c == '\\') {
                inWord = true;
                i = escape(line, i, cur);
            } else {
                inWord = true;
                cur.append(c);
                i++;
            }
        }
        if (inWord) {
            words.add(cur.toString());
        }
        return new Result(words, null);
    }

    /** Decodes the escape starting at {@code line[i] == '\\'}; returns the index after it. */
    private static int escape(String line, int i, StringBuilder out) {
        if (i + 1 >= line.length()) {
            out.append('\\');
            return i + 1;
        }
        char e = line.charAt(i + 1);
        switch (e) {
            case ' ', '#', '\\', '\'', '"', '$' -> out.append(e);
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'x' -> {
                if (i + 3 < line.length() && hex(line.charAt(i + 2)) >= 0 && hex(line.charAt(i + 3)) >= 0) {
                    out.append((char) (hex(line.charAt(i + 2)) * 16 + hex(line.charAt(i + 3))));
                    return i + 4;
                }
                out.append("\\x");
            }
            default -> out.append('\\').append(e);
        }
        return i + 2;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean nameChar(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /**
     * Expands {@code $NAME}, {@code ${NAME}}, {@code ${NAME-default}} or {@code ${NAME[*]}} at
     * {@code line[i] == '$'}. The list form ends the current word at each space of the value. Returns the
     * index after the reference, or -1 when a brace is not closed.
     */
    private int expand(String line, int i, StringBuilder cur, List<String> words) {
        int n = line.length();
        if (i + 1 < n && line.charAt(i + 1) == '{') {
            int close = line.indexOf('}', i + 2);
            if (close < 0) {
                return -1;
            }
            String body = line.substring(i + 2, close);
            String name = body;
            String dflt = null;
            boolean list = false;
            int dash = body.indexOf('-');
            if (dash >= 0) {
                name = body.substring(0, dash);
                dflt = body.substring(dash + 1);
            }
            if (name.endsWith("[*]")) {
                name = name.substring(0, name.length() - 3);
                list = true;
            }
            String value = env.apply(name);
            if (value == null) {
                value = dflt == null ? "" : dflt;
            }
            if (list) {
                String[] parts = value.trim().split("\\s+");
                for (int k = 0; k < parts.length; k++) {
                    if (k > 0) {
                        words.add(cur.toString());
                        cur.setLength(0);
                    }
                    cur.append(parts[k]);
                }
            } else {
                cur.append(value);
            }
            return close + 1;
        }
        int j = i + 1;
        while (j < n && nameChar(line.charAt(j))) {
            j++;
        }
        if (j == i + 1) {
            cur.append('$');
            return i + 1;
        }
        String value = env.apply(line.substring(i + 1, j));
        cur.append(value == null ? "" : value);
        return j;
    }
}
