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
    }

    private static void httpReturn(KeywordContext c) {
        List<String> a = c.args();
        int end = c.conditionStart(0);
        int status = 200;
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
                        return;
                    }
                    status = c.intArg(a.get(++i), "status", 200, 599, -1);
                    if (status < 0) {
                        return;
                    }
                }
                case "content-type" -> {
                    if (!hasValue) {
                        c.error("'content-type' expects a type.");
                        return;
                    }
                    contentType = a.get(++i);
                }
                case "string", "lf-string" -> {
                    if (!hasValue) {
                        c.error("'" + w + "' expects a text.");
                        return;
                    }
                    if (hasBody) {
                        c.error("only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.");
                        return;
                    }
                    hasBody = true;
                    nonEmptyBody = !a.get(++i).isEmpty();
                }
                case "file", "lf-file" -> {
                    if (!hasValue) {
                        c.error("'" + w + "' expects a path.");
                        return;
                    }
                    if (hasBody) {
                        c.error("only one body ('string', 'lf-string', 'file' or 'lf-file') may be given.");
                        return;
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
                        return;
                    }
                }
                case "hdr" -> {
                    if (i + 2 >= end) {
                        c.error("'hdr' expects a name and a value.");
                        return;
                    }
                    String name = a.get(i + 1);
                    if (!HttpTokens.isToken(name)) {
                        c.error("invalid header name '" + name + "'.");
                        return;
                    }
                    i += 2;
                }
                case "errorfile", "errorfiles" -> i++;
                case "default-errorfiles" -> {
                }
                default -> {
                    c.error("unexpected argument '" + w + "'; expected: status, content-type, string, lf-string, file, lf-file, hdr,"
                            + " errorfile, errorfiles, default-errorfiles, if or unless.");
                    return;
                }
            }
        }
        if (nonEmptyBody && contentType == null) {
            c.error("a content type must be defined when non-empty payload is configured.");
            return;
        }
        if (hasBody && (status == 204 || status == 304)) {
            c.error("status " + status + " cannot carry a body.");
            return;
        }
        Condition cond = null;
        if (end < a.size()) {
            cond = c.conditionFrom(end);
            if (cond == null) {
                return;
            }
        }
        List<String> args = ErrorKeywords.resolveRulePage(c, a.subList(0, end), status);
        if (args == null) {
            return;
        }
        RuleKeywords.warnAfterRedirect(c);
        c.proxy().httpRequestRules.add(new HttpRule.Action(c.at(), cond, "return", args));
    }
}
