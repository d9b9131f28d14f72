package dev.sluice.proxy.stream;

import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.PersistenceCookie;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnection;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.log.LogCaptures;
import dev.sluice.proxy.rules.Cond;
import dev.sluice.proxy.rules.ProxyRules;
import dev.sluice.proxy.rules.RdpCookie;
import dev.sluice.proxy.rules.StickTables;
import dev.sluice.proxy.rules.TlsHello;
import dev.sluice.proxy.rules.Txn;
import dev.sluice.sticktable.StickEntry;
import dev.sluice.sticktable.StickKey;
import dev.sluice.sticktable.StickTable;
import io.netty.buffer.ByteBuf;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Which server a request sticks to, and what it leaves for the next one: the backend's persistence cookie (read on the
 * request, set on the response), {@code stick match|on|store-*} rules and {@code option prefer-last-server}. Owned by
 * one stream, used on its event loop only. A stream without an HTTP request has no cookie: it only routes and stores
 * by the stick rules (and the last server, which only HTTP client connections keep).
 */
final class Persistence {
    private final ClientEnd client;
    private final RequestHead request;
    /** What the rules see of the exchange (stick rules' conditions and keys). */
    private final Txn txn;
    /** What the backend's persistence cookie made of this request (null: no cookie on the way yet). */
    private PersistenceCookie.Txn cookieTxn;
    /** The server persistence (a cookie, a stick match) sent the request to, null when balanced. */
    private Server persistTarget;
    /** The server {@code option prefer-last-server} chose instead of the balancing, or null. */
    private Server preferredTarget;
    /** capture cookie read the request's cookies. */
    private boolean cookieCaptured;
    /** The backend whose force-persist / ignore-persist rules were run (once), and what they said. */
    private Backend persistRulesOf;
    private boolean forced;
    private boolean ignored;

    /** {@code request}: null for a stream without one, which then never asks about the cookie. */
    Persistence(ClientEnd client, RequestHead request, Txn txn) {
        this.client = client;
        this.request = request;
        this.txn = txn;
    }

    /**
     * {@code capture cookie} on the request's {@code Cookie} fields (see {@link LogCaptures#cookie}), once: where HAProxy
     * reads the client's cookies, with the persistence cookie before the server is chosen, or when a rule denies.
     */
    void captureCookie(LogCaptures captures) {
        if (captures != null && !cookieCaptured) {
            cookieCaptured = true;
            captures.cookie(false, request.fields());
        }
    }

    /**
     * The server the request's persistence cookie designates in {@code be} (null: none, or no cookie configured), the
     * request's {@code Cookie} fields rewritten as the cookie's mode says. Done once per request.
     */
    Server cookieServer(Backend be) {
        PersistenceCookie pc = be.cookie();
        if (pc == null) {
            return null;
        }
        if (cookieTxn == null) {
            cookieTxn = new PersistenceCookie.Txn();
        }
        if (!cookieTxn.requestDone) {
            persistRules(be);
            pc.request(request.fields(), cookieTxn, be.servers(), System.currentTimeMillis() / 1000, persistsOnDown(be), ignored);
        }
        return cookieTxn.designated;
    }

    /** The server the request's cookie designates in {@code be} (see {@link #cookieServer}), null without {@code be}. */
    Server designated(Backend be) {
        return be == null ? null : cookieServer(be);
    }

    /**
     * Where the request goes before any balancing, given the server its cookie designates ({@code cookie}, or null): as
     * HAProxy 2.6, a {@code use-server} rule's server first, else that one, else a stick match, else the last server
     * ({@code option prefer-last-server}); null to balance. The stick match rules run in any case: each entry they find
     * has its expiry pushed back, whoever chose the server.
     */
    Server route(Backend be, Server cookie) {
        persistRules(be);
        Server sticky = useServer(be);
        if (sticky == null) {
            sticky = cookie;
        }
        if (sticky == null) {
            sticky = rdpServer(be);
        }
        // a use-server rule or a valid cookie comes first: stick match rules only choose when they designated no server
        Server matched = stickyServer(be, sticky != null);
        if (sticky == null) {
            sticky = matched;
        }
        persistTarget = sticky;
        if (sticky == null) {
            preferredTarget = lastServer(be);
        }
        return sticky != null ? sticky : preferredTarget;
    }

    /**
     * The backend's {@code force-persist} and {@code ignore-persist} rules, once the backend is known (HAProxy runs them
     * right after the switching rules): the first whose condition holds decides.
     */
    private void persistRules(Backend be) {
        if (persistRulesOf == be || be.rules() == null) {
            return;
        }
        persistRulesOf = be;
        for (ProxyRules.Persist r : be.rules().persist()) {
            if (Cond.holds(r.cond(), txn)) {
                forced = r.force();
                ignored = !r.force();
                return;
            }
        }
    }

    /** Whether persistence sends requests to a down server: {@code option persist} or a {@code force-persist} rule. */
    private boolean persistsOnDown(Backend be) {
        return forced || be.config().options().persist().downServers();
    }

    /** Whether persistence may send the request to {@code s}: it is not stopped, or persistence ignores that. */
    private boolean persistable(Backend be, Server s) {
        return s.running() || persistsOnDown(be);
    }

    /** A {@code force-persist} rule applied: no redispatch, on a full queue nor on a retry. */
    boolean forced() {
        return forced;
    }

    /**
     * {@code persist rdp-cookie} (HAProxy's tcp_persist_rdp_cookie): the server whose IPv4 address and port the RDP cookie
     * in the held bytes names, in declaration order, when it may be used; null otherwise (no cookie yet included: the
     * content rules are what wait for it).
     */
    private Server rdpServer(Backend be) {
        String name = be.config().options().persist().rdpCookie();
        ByteBuf b = name == null ? null : txn.requestPayload();
        if (b == null) {
            return null;
        }
        long v = RdpCookie.find(b, name.getBytes(StandardCharsets.ISO_8859_1));
        if (v < 0 || TlsHello.length(v) == 0) {
            return null;
        }
        long named = RdpCookie.server(b, TlsHello.offset(v), TlsHello.length(v));
        if (named < 0) {
            return null;
        }
        int ip = (int) (named >>> 16);
        int port = (int) (named & 0xFFFF);
        for (Server s : be.servers()) {
            InetSocketAddress a = s.address();
            if (a != null && a.getAddress() instanceof Inet4Address v4 && v4.hashCode() == ip && a.getPort() == port
                    && persistable(be, s)) {
                return s;
            }
        }
        return null;
    }

    /**
     * {@code use-server} (HAProxy's process_server_rules): the server of the first rule whose condition holds and whose
     * server is not stopped (a stopped one lets the next rule try; weight 0, draining and full ones are used; a stopped
     * one too with {@code option persist} or {@code force-persist}); a dynamic name that names no server ends the rules.
     * Null: no rule chose.
     */
    private Server useServer(Backend backend) {
        if (backend.rules() == null) {
            return null;
        }
        for (ProxyRules.UseServer r : backend.rules().useServer()) {
            if (!Cond.holds(r.cond(), txn)) {
                continue;
            }
            Server s = backend.server(r.dynamic() != null ? r.dynamic().render(txn) : r.server());
            if (s == null) {
                return null;
            }
            if (persistable(backend, s)) {
                return s;
            }
        }
        return null;
    }

    /** The server persistence (a cookie, a stick match) sent the request to, null when balanced. */
    Server persistTarget() {
        return persistTarget;
    }

    /** The server {@code option prefer-last-server} chose, or null. */
    Server preferredTarget() {
        return preferredTarget;
    }

    /**
     * {@code option prefer-last-server} (HAProxy's assign_server before its balancing, for the algorithms that do not
     * hash): the server of the first private connection ({@code http-reuse never}) of the client connection, in the order
     * they were first used, that is still open and goes to a usable server of this backend; the request then goes there,
     * waiting in its queue if need be (HAProxy's default {@code max-keep-alive-queue}). Null otherwise.
     */
    private Server lastServer(Backend backend) {
        if (!backend.config().options().preferLastServer() || !backend.balancesWithoutHash()) {
            return null;
        }
        List<? extends ServerConnection> mine = client.privateConnections();
        if (mine == null) {
            return null;
        }
        for (Iterator<? extends ServerConnection> it = mine.iterator(); it.hasNext();) {
            ServerConnection c = it.next();
            if (!c.isOpen() || c.owner() != client.session()) {
                it.remove();
                continue;
            }
            Server s = c.server();
            if (s != null && s.backend() == backend && s.usable()) {
                return s;
            }
        }
        return null;
    }

    /**
     * {@code stick match|on}: the server stored for the request's key, when it is not stopped (the request then waits in
     * its queue when it is full); null to let the load-balancing algorithm choose, or when {@code assigned} (a server is
     * chosen already). Every entry a rule finds is touched (its expiry pushed back), as HAProxy does.
     */
    private Server stickyServer(Backend backend, boolean assigned) {
        Server found = null;
        for (ProxyRules.Stick r : backend.rules().stick()) {
            if (!r.match() || !Cond.holds(r.cond(), txn)) {
                continue;
            }
            StickKey key = StickTables.keyOf(r.table(), r.key().get(txn));
            StickEntry e = key == null ? null : r.table().lookup(key);
            if (e != null) {
                if (!assigned && found == null) {
                    Server s = backend.serverById(e.serverId());
                    if (s != null && persistable(backend, s)) {
                        // as HAProxy: any server that is not stopped (draining, weight 0 and NOLB ones included)
                        found = s;
                    }
                }
                r.table().touch(e);
            }
        }
        return found;
    }

    /**
     * {@code stick store-request|on} (or {@code store-response} when {@code response}): keeps the key with {@code s}. As
     * HAProxy, only the first store rule of each table that applies (its condition holds, its key exists) stores.
     */
    void stickStore(Backend backend, Server s, boolean response) {
        List<StickTable> stored = null;
        for (ProxyRules.Stick r : backend.rules().stick()) {
            if (!r.store() || r.response() != response || stored != null && stored.contains(r.table()) || !Cond.holds(r.cond(), txn)) {
                continue;
            }
            StickKey key = StickTables.keyOf(r.table(), r.key().get(txn));
            if (key != null) {
                if (stored == null) {
                    stored = new ArrayList<>(2);
                }
                stored.add(r.table());
                r.table().update(key, e -> {
                    e.setServerId(s.id());
                    e.setServerKey(s.name());
                });
            }
        }
    }

    /** The response from {@code server}: the backend's persistence cookie is set, kept or removed as its mode says. */
    void response(Backend backend, ResponseHead head, Server server, boolean direct) {
        PersistenceCookie pc = backend.cookie();
        if (pc != null && (head.status() >= 200 || head.status() == 101)) {
            if (cookieTxn == null) {
                cookieTxn = new PersistenceCookie.Txn();
            }
            pc.response(head, cookieTxn, server, direct, request, System.currentTimeMillis() / 1000, ignored);
        }
    }

    /** The last two letters of the log's %tsc when {@code be}'s cookie logs them, else null (the line's default). */
    String cookieFlags(Backend be) {
        if (be != null && be.cookie() != null && be.cookie().config().logsFlags()) {
            return cookieTxn == null ? "NN" : new String(new char[] {cookieTxn.clientFlag(), cookieTxn.serverFlag()});
        }
        return null;
    }
}
