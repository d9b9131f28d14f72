package dev.sluice.proxy.check;

import java.util.Locale;

/**
 * One line of an agent's answer, read as HAProxy 2.6 reads it (tcpcheck_agent_expect_reply): words separated by spaces,
 * tabs or commas up to the first CR or LF, each either a health word ({@code up}, {@code down}, {@code stopped},
 * {@code fail}), an administrative word ({@code ready}, {@code drain}, {@code maint}), a weight (starts with a digit and
 * holds a {@code %}), {@code maxconn:<n>}, or else an error (the first one is kept); the last word of a kind wins.
 * A {@code #} starts the description, which follows the blanks after it. Words are compared without case; the words
 * kept are as the agent wrote them. Null fields: not said.
 */
public record AgentReply(String health, String admin, String weight, String maxconn, String error, String description) {

    /**
     * Parses {@code line} (without its end of line: the caller cut it at the first CR or LF). The description is ""
     * when there is none.
     */
    public static AgentReply parse(String line) {
        String hs = null;
        String as = null;
        String ps = null;
        String sc = null;
        String err = null;
        int n = line.length();
        int i = 0;
        String desc = "";
        while (i < n) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t' || c == ',') {
                i++;
                continue;
            }
            if (c == '#') {
                i++;
                while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                    i++;
                }
                desc = line.substring(i);
                break;
            }
            int end = i + 1;
            while (end < n && line.charAt(end) != ' ' && line.charAt(end) != '\t' && line.charAt(end) != ',') {
                end++;
            }
            String w = line.substring(i, end);
            String lw = w.toLowerCase(Locale.ROOT);
            switch (lw) {
                case "up", "down", "stopped", "fail" -> hs = w;
                case "ready", "drain", "maint" -> as = w;
                default -> {
                    if (Character.isDigit(w.charAt(0)) && w.indexOf('%') >= 0) {
                        ps = w;
                    } else if (lw.startsWith("maxconn:")) {
                        sc = w;
                    } else if (err == null) {
                        err = w;
                    }
                }
            }
            i = end < n ? end + 1 : end;
        }
        return new AgentReply(hs, as, ps, sc, err, desc);
    }

    /** Whether the health word says the server is up (else down, when there is one). */
    public boolean up() {
        return health != null && health.equalsIgnoreCase("up");
    }

    /**
     * The check's description, as HAProxy writes it: {@code via agent : down (reason)} after a health word (the error,
     * then the warning, stand for a missing description, and replace it after {@code up}), else {@code agent reports an
     * error : x}, else {@code agent warns : x}, else "".
     */
    public String checkDescription(String warning) {
        if (health != null) {
            String msg = description;
            if (msg.isEmpty() || up()) {
                if (error != null && !error.isEmpty()) {
                    msg = error;
                } else if (warning != null && !warning.isEmpty()) {
                    msg = warning;
                }
            }
            return "via agent : " + health + (msg.isEmpty() ? "" : " (" + msg + ")");
        }
        if (error != null && !error.isEmpty()) {
            return "agent reports an error : " + error;
        }
        if (warning != null && !warning.isEmpty()) {
            return "agent warns : " + warning;
        }
        return "";
    }
}
