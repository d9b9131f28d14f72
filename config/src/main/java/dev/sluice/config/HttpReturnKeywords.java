package dev.sluice.config;

import dev.sluice.config.model.Condition;
import dev.sluice.config.model.HttpRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

/**
 * {@code http-request return}: an answer made by the proxy itself (status, content type, a body from a string or a
 * file, headers, or an errorfile page via {@link ErrorKeywords}). Registered after the other http-request actions
 * ({@link RuleKeywords}) so that it comes last where the actions are listed. The parser runs on the parsing thread.
 */
final class HttpReturnKeywords {
    private HttpReturnKeywords() {
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("http-request return", EnumSet.of(Section.FRONTEND, Section.BACKEND, Section.LISTEN),
                "http-request return [status <code>] [content-type <type>] [string <text> | file <path>] [hdr <name> <value>]* [if|unless <cond>]",
                "Answer the request from the proxy itself (default status 200, empty body).", HttpReturnKeywords::httpReturn));
        r.register(new Keyword("http-error", Section.PROXIES,
                "http-error status <code> [content-type <type>] [errorfile <file> | errorfiles <section> | default-errorfiles | string <text>"
                        + " | lf-string <fmt> | file <path> | lf-file <path>] [hdr <name> <fmt>]*",
                "The proxy's reply for one of its error codes (200 400 401 403 404 405 407 408 410 413 421 422 425 429 500 501 502 503 504),"
                        + " as errorfile gives one, built like http-request return (log-format bodies and headers rendered when the"
                        + " error happens); default-errorfiles forgets the proxy's own for the code. The last errorfile, errorfiles or"
                        + " http-error for a code wins.",
                HttpReturnKeywords::httpError));
    }

    private static void httpReturn(KeywordContext c) {
        List<String> a = c.args();
        int end = c.conditionStart(0);
        List<String> args = replyArgs(c, a.subList(0, end), 200);
        if (args == null) {
            return;
        }
        Condition cond = null;
        if (end < a.size()) {
            cond = c.conditionFrom(end);
            if (cond == null) {
                return;
            }
        }
        RuleKeywords.warnAfterRedirect(c);
        c.proxy().httpRequestRules.add(new HttpRule.Action(c.at(), cond, "return", args));
    }

    /** HAProxy's HTTP error codes (http_err_codes of 2.6), the ones {@code http-error} may replace. */
    static final List<Integer> ERROR_CODES = List.of(200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 421, 422, 425, 429, 500, 501, 502,
            503, 504);

    /**
     * {@code http-error status <code> [content-type <type>] [errorfile|errorfiles|default-errorfiles|file|lf-file|string|
     * lf-string ...] [hdr <name> <fmt>]*} (HAProxy 2.2+): the proxy's reply for one of its error codes, as an
     * {@code errorfile} gives one but built like a {@code return}. A whole page (errorfile, errorfiles) is kept as one;
     * a built reply is rendered when the error happens; default-errorfiles forgets what the proxy had for the code.
     */
    static void httpError(KeywordContext c) {
        if (c.section() != Section.DEFAULTS && c.section() != Section.FRONTEND && c.section() != Section.BACKEND
                && c.section() != Section.LISTEN) {
            return;
        }
        List<String> a = c.args();
        int at = a.indexOf("status");
        if (at < 0 || at + 1 >= a.size()) {
            c.lineError("http-error : expects at least a <status> as arguments.");
            return;
        }
        int code;
        try {
            code = Integer.parseInt(a.get(at + 1));
        } catch (NumberFormatException e) {
            code = -1;
        }
        if (code < 200 || code > 599) {
            c.lineError("http-error : Unexpected status code '" + a.get(at + 1) + "'");
            return;
        }
        if (!ERROR_CODES.contains(code)) {
            c.lineError("http-error: status code '" + code + "' not handled.");
            return;
        }
        List<String> args = replyArgs(c, a, code);
        if (args == null) {
            return;
        }
        ProxyBuilder px = c.proxy();
        px.errorPages.remove(code);
        px.errorReplies.remove(code);
        int page = args.indexOf(ErrorKeywords.RULE_PAGE);
        if (page >= 0) {
            px.errorPages.put(code, args.get(page + 1).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        } else if (!args.contains("default-errorfiles")) {
            px.errorReplies.put(code, args);
        }
    }

    /**
     * The arguments of a reply ({@code return}, {@code http-error}) checked as HAProxy's http_parse_http_reply checks
     * them, with an errorfile page read in; null after an error was reported.
     */
    static List<String> replyArgs(KeywordContext c, List<String> a, int dfltStatus) {
        int end = a.size();
        int status = dfltStatus;
        String contentType = null;
        boolean nonEmptyBody = false;
        boolean hasBody = false;
        for (int i = 0; i < end; i++) {
            String w = a.get(i);
            boolean hasValue = i + 1 < end;
            switch (w) {
                case "status" -> {
                    if (!hasValue) {
                        c.error("'status' expects a status code.");
                        return null;
                    }
                    status = c.intArg(a.get(++i), "status", 200, 599, -1);
                    if (status < 0) {
                        return null;
                    }
                }
                case "content-type" -> {
                    if (!hasValue) {
                        c.error("'content-type' expects a type.");
                        return null;
                    }
                    contentType = a.get(++i);
                }
                case "string", "lf-string" -> {
                    if (!hasValue) {
                        c.error("'" + w + "' expects a text.");
                        return null;
                    }
                    if (hasBody) {
                        c.error("only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.");
                        return null;
                    }
                    hasBody = true;
                    nonEmptyBody = !a.get(++i).isEmpty();
                }
                case "file", "lf-file" -> {
                    if (!hasValue) {
                        c.error("'" + w + "' expects a path.");
                        return null;
                    }
                    if (hasBody) {
                        c.error("only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.");
                        return null;
                    }
                    String path = a.get(++i);
                    try {
                        hasBody = true;
                        nonEmptyBody = Files.size(Path.of(c.path(path))) > 0;
                        if (!Files.isReadable(Path.of(c.path(path)))) {
                            throw new IOException("not readable");
                        }
                    } catch (IOException | RuntimeException e) {
                        c.error("cannot read file '" + path + "': " + e.getMessage());
                        return null;
                    }
                }
                case "hdr" -> {
                    if (i + 2 >= end) {
                        c.error("'hdr' expects a name and a value.");
                        return null;
                    }
                    String name = a.get(i + 1);
                    if (!HttpTokens.isToken(name)) {
                        c.error("invalid header name '" + name + "'.");
                        return null;
                    }
                    i += 2;
                }
                case "errorfile", "errorfiles" -> i++;
                case "default-errorfiles" -> {
                }
                default -> {
                    c.error("unexpected argument '" + w + "'; expected: status, content-type, string, lf-string, file, lf-file, hdr,"
                            + " errorfile, errorfiles, default-errorfiles, if or unless.");
                    return null;
                }
            }
        }
        if (nonEmptyBody && contentType == null) {
            c.error("a content type must be defined when non-empty payload is configured.");
            return null;
        }
        if (hasBody && (status == 204 || status == 304)) {
            c.error("status " + status + " cannot carry a body.");
            return null;
        }
        return ErrorKeywords.resolveRulePage(c, a, status);
    }
}
