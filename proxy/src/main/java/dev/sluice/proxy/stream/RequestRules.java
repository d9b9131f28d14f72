package dev.sluice.proxy.stream;

import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.rules.Action;
import dev.sluice.proxy.rules.ForwardFor;
import dev.sluice.proxy.rules.PageService;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.rules.Service;

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
        return !servePage(backend.statsPage(), backend.rules().request().size());
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
