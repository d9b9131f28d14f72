package dev.sluice.proxy.rules;

import dev.sluice.config.Units;
import dev.sluice.config.model.HttpRule;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Compiles rule actions ({@link HttpRule.Action}) into {@link Action}s:
 * templates, regexes and response bodies are prepared once. Errors are
 * {@link IllegalArgumentException}s naming the problem.
 */
public final class Actions {
    private Actions() {
    }

    private static final AsciiString LOCATION = AsciiString.cached("location");
    private static final AsciiString NO_CACHE = AsciiString.cached("no-cache");

    public static Action compile(HttpRule rule, boolean response) {
        HttpRule.Action a = (HttpRule.Action) rule;
        String word = a.name();
        int paren = word.indexOf('(');
        String name = paren < 0 ? word : word.substring(0, paren);
        String inner = paren < 0 ? null : word.substring(paren + 1, word.length() - 1);
        List<String> args = a.args();
        return switch (name) {
            case "allow", "accept" -> t -> Action.Verdict.STOP;
            case "deny" -> deny(args, response ? 502 : 403);
            case "tarpit" -> {
                int status = statusOpt(args, 500);
                // with content options the answer after the delay is that reply, else the proxy's page for the status
                Action reply = args.stream().anyMatch(w -> !w.equals("deny_status") && !w.equals("status") && !w.matches("\\d{3}"))
                        ? replyFromArgs(args, 500, true) : null;
                yield t -> {
                    t.tarpit(status, reply);
                    return Action.Verdict.DONE;
                };
            }
            case "expect-proxy" -> t -> {
                t.expectProxy();
                return Action.Verdict.CONTINUE;
            };
            case "reject" -> t -> {
                t.drop();
                return Action.Verdict.DONE;
            };
            case "set-src", "set-dst" -> {
                SampleExpr e = RuleCompiler.sample(args.get(0));
                boolean source = name.equals("set-src");
                yield t -> {
                    InetAddress ip = Samples.ip(e.get(t));
                    if (ip != null) {
                        t.setAddress(source, ip, -1);
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "set-tos", "set-mark" -> {
                int value = (int) dev.sluice.config.Units.strtol(args.get(0), 0).value();
                boolean mark = name.equals("set-mark");
                yield t -> {
                    t.setSocketOption(mark, value);
                    return Action.Verdict.CONTINUE;
                };
            }
            // HAProxy's task priority: Sluice's event loops have none (sluice -c warns)
            case "set-nice" -> t -> Action.Verdict.CONTINUE;
            case "set-priority-class", "set-priority-offset" -> {
                // sample_fetch_as_type(SINT): no sample (or none convertible) leaves the priority as it was
                SampleExpr e = RuleCompiler.sample(args.get(0));
                boolean offset = name.equals("set-priority-offset");
                yield t -> {
                    Long v = Samples.integer(e.get(t));
                    if (v != null) {
                        t.setPriority(offset, v);
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "set-src-port", "set-dst-port" -> {
                SampleExpr e = RuleCompiler.sample(args.get(0));
                boolean source = name.equals("set-src-port");
                yield t -> {
                    Long port = Samples.integer(e.get(t));
                    if (port != null) {
                        t.setAddress(source, null, (int) (port & 0xffff));
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "switch-mode" -> {
                String proto = args.size() > 2 && args.get(1).equals("proto") ? args.get(2) : null;
                yield t -> {
                    t.switchMode(proto);
                    return Action.Verdict.STOP;
                };
            }
            case "close" -> t -> {
                t.closeServer();
                return Action.Verdict.STOP;
            };
            case "silent-drop" -> t -> {
                t.silentDrop();
                return Action.Verdict.DONE;
            };
            case "return" -> returnFromArgs(args);
            case "cache-use", "cache-store" -> {
                String cache = args.get(0);
                boolean use = name.equals("cache-use");
                String proxy = CompileScope.proxy();
                yield t -> {
                    if (use) {
                        t.cacheUse(cache);
                    } else {
                        t.cacheStore(cache, proxy);
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "use-service" -> {
                String svc = args.get(0);
                yield t -> {
                    Service s = t.service(svc);
                    if (s == null) {
                        t.answerStatus(500, 'I');
                    } else {
                        Service.send(t, s.serve(t));
                    }
                    return Action.Verdict.DONE;
                };
            }
            case "redirect" -> redirect(args);
            case "set-header", "add-header" -> {
                AsciiString n = lower(args.get(0));
                Template v = Template.compile(args.get(1));
                boolean set = name.equals("set-header");
                yield t -> {
                    HttpFields f = t.head().fields();
                    AsciiString value = new AsciiString(v.render(t));
                    if (set) {
                        f.set(n, value);
                    } else {
                        f.add(n, value);
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "del-header" -> delHeader(args);
            case "replace-header", "replace-value" -> {
                AsciiString n = lower(args.get(0));
                Pattern p = Pattern.compile(args.get(1));
                Template v = Template.compile(Converters.haproxyReplacement(args.get(2)));
                boolean each = name.equals("replace-value");
                yield t -> {
                    HttpFields f = t.head().fields();
                    String repl = v.render(t);
                    for (int i = 0; i < f.size(); i++) {
                        if (!f.name(i).contentEquals(n)) {
                            continue;
                        }
                        AsciiString raw = f.value(i);
                        String cur = raw.toString();
                        String out;
                        if (each) {
                            StringBuilder sb = new StringBuilder(cur.length() + 16);
                            int start = 0;
                            while (start <= cur.length()) {
                                // HAProxy's values: a comma inside a quoted string does not split
                                int end = Fetches.Header.valueEnd(raw, start);
                                int comma = end < cur.length() ? end : -1;
                                int ts = start;
                                int te = end;
                                while (ts < te && (cur.charAt(ts) == ' ' || cur.charAt(ts) == '\t')) {
                                    ts++;
                                }
                                while (te > ts && (cur.charAt(te - 1) == ' ' || cur.charAt(te - 1) == '\t')) {
                                    te--;
                                }
                                java.util.regex.Matcher m = p.matcher(cur.substring(ts, te));
                                if (m.find()) {
                                    // HAProxy's http_replace_header_value: the value and the spaces around it are replaced
                                    sb.append(expand(m, repl));
                                } else {
                                    sb.append(cur, start, end);
                                }
                                if (comma < 0) {
                                    break;
                                }
                                sb.append(',');
                                start = comma + 1;
                            }
                            out = sb.toString();
                        } else {
                            java.util.regex.Matcher m = p.matcher(cur);
                            out = m.find() ? expand(m, repl) : cur;
                        }
                        f.setValue(i, new AsciiString(out));
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "set-path", "set-pathq", "set-query", "set-uri", "set-method" -> {
                Template v = Template.compile(args.get(0));
                yield t -> {
                    RequestHead r = t.request();
                    String val = v.render(t);
                    switch (name) {
                        case "set-method" -> r.method(new AsciiString(val));
                        case "set-uri" -> r.target(new AsciiString(val));
                        case "set-path" -> {
                            CharSequence q = Fetches.query(r);
                            r.target(new AsciiString(prefixOf(r) + val + (q != null ? "?" + q : "")));
                        }
                        case "set-pathq" -> r.target(new AsciiString(prefixOf(r) + val));
                        default -> {
                            CharSequence path = Fetches.path(r, false);
                            r.target(new AsciiString(prefixOf(r) + path + (val.isEmpty() ? "" : "?" + val)));
                        }
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "replace-path", "replace-pathq", "replace-uri" -> {
                Pattern p = Pattern.compile(args.get(0));
                Template v = Template.compile(Converters.haproxyReplacement(args.get(1)));
                yield t -> {
                    RequestHead r = t.request();
                    String repl = v.render(t);
                    switch (name) {
                        case "replace-uri" -> {
                            java.util.regex.Matcher m = p.matcher(r.target());
                            if (m.find()) {
                                r.target(new AsciiString(expand(m, repl)));
                            }
                        }
                        case "replace-pathq" -> {
                            CharSequence pq = Fetches.path(r, true);
                            java.util.regex.Matcher m = p.matcher(pq);
                            if (m.find()) {
                                r.target(new AsciiString(prefixOf(r) + expand(m, repl)));
                            }
                        }
                        default -> {
                            CharSequence path = Fetches.path(r, false);
                            java.util.regex.Matcher m = p.matcher(path);
                            if (m.find()) {
                                CharSequence q = Fetches.query(r);
                                r.target(new AsciiString(prefixOf(r) + expand(m, repl) + (q != null ? "?" + q : "")));
                            }
                        }
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "set-status" -> {
                int code = Integer.parseInt(args.get(0));
                AsciiString reason = args.size() == 3 ? new AsciiString(args.get(2)) : Status.reason(code);
                yield t -> {
                    if (t.response() != null) {
                        t.response().status(code, reason);
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "track-sc0", "track-sc1", "track-sc2" -> {
                int slot = name.charAt(name.length() - 1) - '0';
                SampleExpr key = RuleCompiler.sample(args.get(0));
                dev.sluice.sticktable.StickTable table = StickTables.resolve(args.size() == 3 ? args.get(2) : null);
                yield t -> {
                    Trackers tr = t.trackers();
                    if (tr != null && tr.get(slot) == null) {
                        tr.track(slot, table, StickTables.keyOf(table, key.get(t)));
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "sc-inc-gpc0", "sc-inc-gpc1", "sc-inc-gpc", "sc-add-gpc", "sc-set-gpt0", "sc-set-gpt" -> stickCounterAction(name, inner, args);
            case "set-var" -> {
                String var = Vars.name(inner.split(",")[0]);
                SampleExpr e = RuleCompiler.sample(args.get(0));
                yield t -> {
                    Object v = e.get(t);
                    if (v != null) {
                        t.vars().put(var, v instanceof CharSequence cs ? cs.toString() : v);
                    }
                    return Action.Verdict.CONTINUE;
                };
            }
            case "set-var-fmt" -> {
                String var = Vars.name(inner.split(",")[0]);
                Template v = Template.compile(args.get(0));
                yield t -> {
                    t.vars().put(var, v.render(t));
                    return Action.Verdict.CONTINUE;
                };
            }
            case "unset-var" -> {
                String var = Vars.name(inner);
                yield t -> {
                    t.vars().remove(var);
                    return Action.Verdict.CONTINUE;
                };
            }
            case "set-timeout" -> {
                long ms = Units.parseTimeMillis(args.get(1));
                String which = args.get(0);
                yield t -> {
                    t.setTimeout(which, ms);
                    return Action.Verdict.CONTINUE;
                };
            }
            case "auth" -> auth(args);
            case "wait-for-body" -> {
                long ms = Units.parseTimeMillis(args.get(1));
                long atLeast = args.size() > 3 ? Units.parseSize(args.get(3)) : 0;
                yield t -> t.waitForBody(ms, atLeast) ? Action.Verdict.CONTINUE : Action.Verdict.YIELD;
            }
            case "capture" -> {
                SampleExpr e = RuleCompiler.sample(args.get(0));
                int slot = Integer.parseInt(args.get(2));
                yield t -> {
                    t.capture(response, slot, Samples.str(e.get(t)));
                    return Action.Verdict.CONTINUE;
                };
            }
            // rewrites never fail in Sluice (no fixed rewrite reserve): HAProxy's strict and lax modes act the same
            case "strict-mode" -> t -> Action.Verdict.CONTINUE;
            case "set-log-level" -> {
                int level = args.get(0).equals("silent") ? Integer.MAX_VALUE
                        : java.util.List.of("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug").indexOf(args.get(0));
                yield t -> {
                    t.setLogLevel(level);
                    return Action.Verdict.CONTINUE;
                };
            }
            case "disable-l7-retry" -> t -> {
                t.disableL7Retry();
                return Action.Verdict.CONTINUE;
            };
            case "set-retries" -> {
                int n = Integer.parseInt(args.get(0));
                yield t -> {
                    t.setRetries(n);
                    return Action.Verdict.CONTINUE;
                };
            }
            default -> throw new IllegalArgumentException("action '" + name + "' is not supported by Sluice yet");
        };
    }

    /** The scheme and authority of an absolute-form target, kept by path rewrites. */
    private static String prefixOf(RequestHead r) {
        AsciiString t = r.target();
        if (t.length() == 0 || t.byteAt(0) == '/' || t.byteAt(0) == '*') {
            return "";
        }
        int s = t.indexOf("://", 0);
        int slash = s < 0 ? -1 : t.indexOf('/', s + 3);
        return s < 0 ? "" : slash < 0 ? t.toString() : t.subSequence(0, slash, false).toString();
    }

    /**
     * HAProxy's {@code exp_replace}: once the regex matched somewhere, the whole subject becomes the
     * replacement with its back-references filled in (text outside the match is not kept).
     */
    static String expand(java.util.regex.Matcher m, String replacement) {
        StringBuilder sb = new StringBuilder();
        m.appendReplacement(sb, replacement);
        return sb.substring(m.start());
    }

    private static AsciiString lower(String s) {
        return AsciiString.cached(s.toLowerCase(Locale.ROOT));
    }

    /** Builds a local answer: {@code hdr} fields, then content-length and content-type, as HAProxy does. */
    private static Action returnAction(Reply reply, char cause) {
        return t -> {
            // a reply to a response is built once the server's response is dropped: its samples read nothing there
            Reply.Page p = reply.render(t.responsePhase() ? new WithoutResponse(t) : t);
            t.answer(p.head(), p.body(), cause);
            return Action.Verdict.DONE;
        };
    }

    /** Answers with a raw error page; an empty page closes the connection without a reply, as HAProxy does. */
    private static Action pageAction(int status, byte[] raw, char cause) {
        if (raw.length == 0) {
            return t -> {
                t.drop();
                return Action.Verdict.DONE;
            };
        }
        dev.sluice.proxy.http.h1.ErrorResponses page = new dev.sluice.proxy.http.h1.ErrorResponses(
                new dev.sluice.config.model.ErrorPages(java.util.Map.of(status, raw)));
        byte[] body = page.body(status);
        return t -> {
            t.answer(page.head(status), body, cause);
            return Action.Verdict.DONE;
        };
    }

    private static int statusOpt(List<String> args, int dflt) {
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).equals("deny_status") || args.get(i).equals("status")) {
                return Integer.parseInt(args.get(i + 1));
            }
        }
        return dflt;
    }

    /** Parses return-style options: status, content-type, string/lf-string/file/lf-file, hdr. */
    private static Action replyFromArgs(List<String> args, int dfltStatus, boolean deny) {
        // the status first: a page option may come before it
        int status = statusOpt(args, dfltStatus);
        boolean custom = false;
        for (int i = 0; i < args.size(); i++) {
            String w = args.get(i);
            switch (w) {
                case "status", "deny_status" -> i++;
                case dev.sluice.config.model.ErrorPages.RULE_PAGE -> {
                    // errorfile/errorfiles, read when the configuration was parsed
                    byte[] raw = args.get(++i).getBytes(StandardCharsets.ISO_8859_1);
                    return pageAction(status, raw, deny ? 'P' : 'L');
                }
                case "default-errorfiles" -> {
                    // the proxy's own page for the status (errorfile, errorfiles, http-error, or the built-in one)
                    int s = status;
                    char cause = deny ? 'P' : 'L';
                    return t -> {
                        t.answerStatus(s, cause);
                        return Action.Verdict.DONE;
                    };
                }
                case "content-type", "string", "lf-string", "file", "lf-file" -> {
                    custom = true;
                    i++;
                }
                case "hdr" -> {
                    custom = true;
                    i += 2;
                }
                default -> throw new IllegalArgumentException("unexpected argument '" + w + "'");
            }
        }
        if (deny && !custom) {
            int s = status;
            return t -> {
                t.answerStatus(s, 'P');
                return Action.Verdict.DONE;
            };
        }
        // a deny is the proxy's refusal ('P' in the termination state), a return a local answer ('L')
        Action reply = returnAction(Reply.compile(status, args), deny ? 'P' : 'L');
        return deny ? t -> {
            reply.apply(t);
            return Action.Verdict.DONE;
        } : reply;
    }

    private static Action deny(List<String> args, int dflt) {
        return replyFromArgs(args, dflt, true);
    }

    private static Action returnFromArgs(List<String> args) {
        return replyFromArgs(args, 200, false);
    }

    /** {@code sc-inc-gpc0(<sc>)} and its kin: change a data element of the entry tracked by a stick counter. */
    private static Action stickCounterAction(String name, String inner, List<String> args) {
        String[] p = inner.split(",");
        int idx = p.length == 2 ? Integer.parseInt(p[0]) : 0;
        int slot = Integer.parseInt(p[p.length - 1]);
        SampleExpr value = args.isEmpty() ? null : args.get(0).matches("-?\\d+") ? null : RuleCompiler.sample(args.get(0));
        long constant = !args.isEmpty() && value == null ? Long.parseLong(args.get(0)) : 1;
        return t -> {
            Trackers tr = t.trackers();
            dev.sluice.sticktable.StickEntry e = tr == null ? null : tr.get(slot);
            if (e == null) {
                return Action.Verdict.CONTINUE;
            }
            long v = constant;
            if (value != null) {
                Long l = Samples.integer(value.get(t));
                if (l == null) {
                    return Action.Verdict.CONTINUE;
                }
                v = l;
            }
            // data the table does not store is left alone (the entry ignores unknown slots)
            switch (name) {
                case "sc-inc-gpc0" -> e.incGpc0();
                case "sc-inc-gpc1" -> e.incGpc1();
                case "sc-inc-gpc", "sc-add-gpc" -> e.addGpc(idx, v);
                case "sc-set-gpt0" -> e.setGpt0(v);
                default -> e.setGpt(idx, v);
            }
            e.table().touch(e);
            return Action.Verdict.CONTINUE;
        };
    }

    private static final AsciiString WWW_AUTHENTICATE = AsciiString.cached("www-authenticate");
    private static final AsciiString PROXY_AUTHENTICATE = AsciiString.cached("proxy-authenticate");

    /**
     * {@code auth [realm <realm>]}: HAProxy's fixed 401 page (not an errorfile) with
     * {@code WWW-Authenticate: Basic realm="<realm>"}, or its 407 page with {@code Proxy-Authenticate} for a
     * client using the proxy as a proxy; the realm defaults to the name of the proxy whose rule it is.
     */
    private static Action auth(List<String> args) {
        AsciiString fixed = args.size() == 2 ? AsciiString.cached("Basic realm=\"" + args.get(1) + "\"") : null;
        dev.sluice.proxy.http.GeneratedResponse page401 = dev.sluice.proxy.http.GeneratedResponse.of(401);
        dev.sluice.proxy.http.GeneratedResponse page407 = dev.sluice.proxy.http.GeneratedResponse.of(407);
        return t -> {
            boolean proxied = t.proxyAuthentication();
            dev.sluice.proxy.http.GeneratedResponse page = proxied ? page407 : page401;
            ResponseHead head = page.head();
            String proxy = t.backendName() != null ? t.backendName() : t.frontendName();
            head.fields().add(proxied ? PROXY_AUTHENTICATE : WWW_AUTHENTICATE,
                    fixed != null ? fixed : new AsciiString("Basic realm=\"" + proxy + "\""));
            t.answer(head, page.body(), 'L');
            return Action.Verdict.DONE;
        };
    }

    private static Action delHeader(List<String> args) {
        AsciiString n = lower(args.get(0));
        if (args.size() == 1) {
            return t -> {
                t.head().fields().removeAll(n);
                return Action.Verdict.CONTINUE;
            };
        }
        Match m = Match.of(args.get(2));
        // names are lower case: str, beg, end and sub ignore case, a regex runs as written on the lower-case name (HAProxy's way)
        java.util.function.Predicate<Object> p = m == Match.REG ? m.compile(List.of(args.get(0)), false)
                : m.compile(List.of(args.get(0).toLowerCase(Locale.ROOT)), true);
        return t -> {
            HttpFields f = t.head().fields();
            for (int i = f.size() - 1; i >= 0; i--) {
                if (p.test(f.name(i))) {
                    f.remove(i);
                }
            }
            return Action.Verdict.CONTINUE;
        };
    }

    private static Action redirect(List<String> args) {
        String type = args.get(0);
        Template target = Template.compile(args.get(1));
        int code = 302;
        boolean dropQuery = false;
        boolean appendSlash = false;
        List<String> cookies = new ArrayList<>();
        for (int i = 2; i < args.size(); i++) {
            switch (args.get(i)) {
                case "code" -> code = Integer.parseInt(args.get(++i));
                case "drop-query" -> dropQuery = true;
                case "append-slash" -> appendSlash = true;
                case "set-cookie" -> cookies.add(args.get(++i));
                case "clear-cookie" -> cookies.add(args.get(++i) + "; Max-Age=0; Expires=Thu, 01-Jan-1970 00:00:01 GMT");
                default -> {
                }
            }
        }
        int status = code;
        boolean drop = dropQuery;
        boolean slash = appendSlash;
        return t -> {
            RequestHead r = t.request();
            String loc;
            String v = target.render(t);
            CharSequence path = Fetches.path(r, false);
            CharSequence q = Fetches.query(r);
            String rest = (path == null ? "/" : path.toString()) + (slash && path != null && !path.toString().endsWith("/") ? "/" : "")
                    + (drop || q == null ? "" : "?" + q);
            switch (type) {
                case "prefix" -> loc = (v.equals("/") ? "" : v) + rest;
                case "scheme" -> {
                    AsciiString host = r.fields().get(HeaderNames.HOST);
                    loc = v + "://" + (host == null ? "" : host) + rest;
                }
                default -> loc = v;
            }
            HttpFields f = new HttpFields(4);
            f.add(HeaderNames.CONTENT_LENGTH, AsciiString.cached("0"));
            f.add(LOCATION, new AsciiString(loc));
            if (status == 302 || status == 303 || status == 307) {
                f.add(HeaderNames.CACHE_CONTROL, NO_CACHE);
            }
            for (String c : cookies) {
                f.add(AsciiString.cached("set-cookie"), new AsciiString(c));
            }
            ResponseHead head = new ResponseHead(HttpVersion.HTTP_1_1, status, Status.reason(status), f);
            head.bodyLength(0);
            t.answer(head, new byte[0], 'L');
            return Action.Verdict.DONE;
        };
    }
}
