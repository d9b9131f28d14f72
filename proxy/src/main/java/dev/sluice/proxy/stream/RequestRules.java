package dev.sluice.proxy.stream;

import dev.sluice.config.model.ProxyOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.PageService;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Service;
import io.netty.util.AsciiString;

/**
 * The request rules of a {@link Stream}, in HAProxy's order: the frontend's {@code http-request} rules, the stats page,
 * the backend choice, the backend's {@code tcp-request content} and {@code http-request} rules, its stats page. They
 * stop at a {@code wait-for-body} that must wait and go on from the same rule when the body arrived. Owned by its
 * stream, used on the stream's event loop only.
 */
final class RequestRules {
    private final Stream stream;
    private final Frontend frontend;
    private final RequestHead request;
    private final StreamTarget target;
    /** Where the rules stopped for {@code wait-for-body}: the next rule, and whether it is a backend rule. */
    private int ruleIndex;
    private boolean backendRules;

    RequestRules(Stream stream, Frontend frontend, RequestHead request, StreamTarget target) {
        this.stream = stream;
        this.frontend = frontend;
        this.request = request;
        this.target = target;
    }

    /**
     * Runs the rules from where they stopped: true when they all passed and the request goes to a server of the
     * stream's backend; false when they ended the exchange, or wait for the body.
     */
    boolean resume() {
        Backend backend = stream.backend();
        if (!backendRules) {
            int r = Rule.resume(frontend.rules().request(), target, ruleIndex);
            if (r == Rule.ENDED) {
                return false;
            }
            if (stream.body().waiting()) {
                ruleIndex = r;
                return false;
            }
            if (!restrictNames(frontend.config().options().headerNames())) {
                return false;
            }
            if (servePage(frontend.statsPage(), frontend.rules().request().size())) {
                return false;
            }
            backend = stream.client().takeChosenBackend();
            if (backend == null) {
                backend = frontend.selectBackend(target);
            }
            if (backend == null) {
                stream.fail(503);
                return false;
            }
            stream.backend(backend);
            stream.accounting().backendChosen(backend);
            backendRules = true;
            ruleIndex = 0;
            if (Rule.run(backend.rules().content(), target) == Action.Verdict.DONE) {
                return false;
            }
        }
        int r = Rule.resume(backend.rules().request(), target, ruleIndex);
        if (r == Rule.ENDED) {
            return false;
        }
        if (stream.body().waiting()) {
            ruleIndex = r;
            return false;
        }
        if (backend.config() != frontend.config() && !restrictNames(backend.config().options().headerNames())) {
            return false;
        }
        return !servePage(backend.statsPage(), backend.rules().request().size());
    }

    /**
     * {@code option http-restrict-req-hdr-names} of the proxy whose rules just ran: request fields named outside
     * [A-Za-z0-9-] removed, or the request refused with a 403 (HAProxy's http_req_restrict_header_names, counted and
     * flagged as a deny). Whether the request goes on.
     */
    private boolean restrictNames(ProxyOptions.HeaderNames mode) {
        if (mode == null || mode == ProxyOptions.HeaderNames.PRESERVE) {
            return true;
        }
        HttpFields f = request.fields();
        for (int i = f.size() - 1; i >= 0; i--) {
            if (!plainName(f.name(i))) {
                if (mode == ProxyOptions.HeaderNames.REJECT) {
                    target.answerStatus(403, 'P');
                    return false;
                }
                f.remove(i);
            }
        }
        return true;
    }

    /** Whether a field name has only letters, digits and '-'. */
    static boolean plainName(AsciiString name) {
        for (int i = 0; i < name.length(); i++) {
            byte c = name.byteAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** {@code option forwardfor}, then {@code option originalto}: the backend's, else the frontend's. */
    void forwardFor() {
        Backend be = stream.backend();
        ForwardFor ff = be.forwardFor() != null ? be.forwardFor() : frontend.forwardFor();
        if (ff != null) {
            ff.apply(request, stream.client().remoteAddress().getAddress());
        }
        // option originalto after it, as HAProxy: the address the client connected to
        ForwardFor ot = be.originalTo() != null ? be.originalTo() : frontend.originalTo();
        if (ot != null) {
            ot.apply(request, stream.client().localAddress().getAddress());
        }
    }

    /**
     * The stats page of the proxy whose rules just ran, when the request is for it: answered (true), or held
     * until its body arrived (true too: {@link #resume} comes back here, the rules before it done).
     */
    private boolean servePage(PageService page, int rulesDone) {
        if (page == null || !page.matches(request)) {
            return false;
        }
        if (page.needsBody(request)) {
            long t = frontend.timeouts().httpRequest();
            if (t == Timeouts.UNSET || t <= 0) {
                t = frontend.timeouts().client() == Timeouts.UNSET ? 10_000 : frontend.timeouts().client();
            }
            if (!stream.waitForBody(t, 0)) {
                ruleIndex = rulesDone;
                return true;
            }
        }
        Service.send(target, page.serve(target));
        return true;
    }
}
