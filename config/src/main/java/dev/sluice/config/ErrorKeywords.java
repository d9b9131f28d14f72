package dev.sluice.config;

import dev.sluice.config.model.ErrorPages;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code errorfile}, {@code errorfiles} and the {@code http-errors} section. */
final class ErrorKeywords {
    private ErrorKeywords() {
    }

    /** The statuses HAProxy accepts error files for. */
    static final Set<Integer> CODES = Set.of(200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 414, 425, 429, 431, 500, 501, 502, 503, 504);

    static void register(KeywordRegistry r) {
        r.register(new Keyword("errorfile", EnumSet.of(Section.DEFAULTS, Section.FRONTEND, Section.BACKEND, Section.LISTEN,
                Section.HTTP_ERRORS), "errorfile <code> <file>",
                "Answer with this raw HTTP response file instead of the built-in page for this status; an empty file closes without reply.",
                ErrorKeywords::errorfile));
        r.register(new Keyword("errorfiles", Section.PROXIES, "errorfiles <http-errors section> [<code> ...]",
                "Use the error files of an http-errors section (all its codes, or those listed).", ErrorKeywords::errorfiles));
    }

    private static void errorfile(KeywordContext c) {
        if (!c.expectArgs(2, 2, "errorfile <code> <file>")) {
            return;
        }
        int code;
        try {
            code = Integer.parseInt(c.args().get(0));
        } catch (NumberFormatException e) {
            code = -1;
        }
        if (!CODES.contains(code)) {
            c.error("status code '" + c.args().get(0) + "' not handled (expected one of "
                    + String.join(" ", CODES.stream().sorted().map(String::valueOf).toList()) + ").");
            return;
        }
        byte[] page;
        String file = c.args().get(1);
        try {
            page = Files.readAllBytes(Path.of(c.path(file)));
        } catch (IOException | RuntimeException e) {
            c.error("error opening file <" + file + ">.");
            return;
        }
        if (page.length > 0) {
            String why = checkResponse(page);
            if (why != null) {
                c.error("file <" + file + "> is not a valid HTTP response: " + why + ".");
                return;
            }
        }
        if (c.section() == Section.HTTP_ERRORS) {
            c.currentErrorSection().put(code, page);
        } else {
            c.proxy().errorPages.put(code, page);
            c.proxy().errorReplies.remove(code);
        }
    }

    /** A minimal check that the file starts like an HTTP/1 response; the runtime parses it fully. */
    static String checkResponse(byte[] page) {
        String head = new String(page, 0, Math.min(page.length, 64), StandardCharsets.ISO_8859_1);
        if (!head.startsWith("HTTP/1.")) {
            return "no HTTP/1.x status line";
        }
        String all = new String(page, StandardCharsets.ISO_8859_1);
        if (!all.contains("\n\n") && !all.contains("\r\n\r\n")) {
            return "no end of headers";
        }
        return null;
    }

    private static void errorfiles(KeywordContext c) {
        List<String> a = c.args();
        if (a.isEmpty()) {
            c.error("expects the name of an http-errors section.");
            return;
        }
        Map<Integer, byte[]> section = c.httpErrorSections().get(a.get(0));
        if (section == null) {
            c.error("unknown http-errors section '" + a.get(0) + "' (it must be declared before it is used)"
                    + Suggestions.didYouMean(Suggestions.closest(a.get(0), c.httpErrorSections().keySet())) + ".");
            return;
        }
        if (a.size() == 1) {
            c.proxy().errorPages.putAll(section);
            c.proxy().errorReplies.keySet().removeAll(section.keySet());
            return;
        }
        for (String s : a.subList(1, a.size())) {
            int code;
            try {
                code = Integer.parseInt(s);
            } catch (NumberFormatException e) {
                c.error("invalid status code '" + s + "'.");
                return;
            }
            if (!section.containsKey(code)) {
                c.error("status code " + code + " is not defined in http-errors section '" + a.get(0) + "'.");
                return;
            }
            c.proxy().errorPages.put(code, section.get(code));
            c.proxy().errorReplies.remove(code);
        }
    }

    static final String RULE_PAGE = ErrorPages.RULE_PAGE;

    /**
     * The {@code errorfile <file>}, {@code errorfiles <section>} and {@code default-errorfiles} options of a
     * {@code deny}, {@code tarpit} or {@code return} rule with status {@code status}: the page is read now and
     * the arguments come back with {@link #RULE_PAGE} and its text instead (a section without that status gives the
     * bare status, as HAProxy answers); null after an error. Arguments without these options come back unchanged.
     */
    static List<String> resolveRulePage(KeywordContext c, List<String> args, int status) {
        int at = -1;
        for (int i = 0; i < args.size(); i++) {
            String w = args.get(i);
            if (w.equals("errorfile") || w.equals("errorfiles") || w.equals("default-errorfiles")) {
                if (at >= 0) {
                    c.error("only one of 'errorfile', 'errorfiles' and 'default-errorfiles' may be given.");
                    return null;
                }
                at = i;
            }
        }
        if (at < 0) {
            return args;
        }
        for (String w : args) {
            if (List.of("content-type", "string", "lf-string", "file", "lf-file", "hdr").contains(w)) {
                c.error("'" + args.get(at) + "' cannot be used with '" + w + "': the page is a whole HTTP response.");
                return null;
            }
        }
        String opt = args.get(at);
        List<String> out = new ArrayList<>(args.subList(0, at));
        if (opt.equals("default-errorfiles")) {
            out.add(opt);
            out.addAll(args.subList(at + 1, args.size()));
            return out;
        }
        if (at + 1 >= args.size()) {
            c.error("'" + opt + "' expects " + (opt.equals("errorfile") ? "a file." : "the name of an http-errors section."));
            return null;
        }
        String value = args.get(at + 1);
        byte[] page;
        if (opt.equals("errorfile")) {
            try {
                page = Files.readAllBytes(Path.of(c.path(value)));
            } catch (IOException | RuntimeException e) {
                c.error("error opening file <" + value + ">.");
                return null;
            }
            String why = page.length == 0 ? null : checkResponse(page);
            if (why != null) {
                c.error("file <" + value + "> is not a valid HTTP response: " + why + ".");
                return null;
            }
        } else {
            Map<Integer, byte[]> section = c.httpErrorSections().get(value);
            if (section == null) {
                c.error("unknown http-errors section '" + value + "' (it must be declared before it is used)"
                        + Suggestions.didYouMean(Suggestions.closest(value, c.httpErrorSections().keySet())) + ".");
                return null;
            }
            page = section.get(status);
            if (page == null) {
                // HAProxy answers the status with nothing else when the section has no page for it
                page = ("HTTP/1.1 " + status + " \r\ncontent-length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
            }
        }
        if (page == null) {
            out.add("default-errorfiles");
        } else {
            out.add(RULE_PAGE);
            out.add(new String(page, StandardCharsets.ISO_8859_1));
        }
        out.addAll(args.subList(at + 2, args.size()));
        return out;
    }
}
