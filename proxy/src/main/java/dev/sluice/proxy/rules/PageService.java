package dev.sluice.proxy.rules;

import dev.sluice.proxy.http.RequestHead;

/**
 * A {@link Service} a proxy answers for the requests whose path it claims (the stats page), checked after the
 * proxy's {@code http-request} rules. A request whose answer needs its body (a form posted to the page) is
 * held until the body arrived.
 */
public interface PageService extends Service {
    boolean matches(RequestHead r);

    /** Whether the answer to this request reads its body. */
    boolean needsBody(RequestHead r);
}
