package dev.sluice.config;

import dev.sluice.config.model.Server;
import dev.sluice.config.model.ServerCheck;
import java.util.List;

/**
 * The load-balancing options of a {@code server} or {@code default-server} line while it is parsed:
 * what {@code default-server} passes on to the servers that follow it. Parse-time only.
 */
final class ServerParams {
    int weight = 1;
    /** {@code id <n>}: only on a server line; 0 when the id is to be assigned. */
    int id;
    boolean backup;
    boolean disabled;
    Server.InitState initState;
    int maxconn;
    int maxqueue;
    int minconn;
    long slowstart;
    /** {@code cookie <value>}: the persistence cookie value designating the server (null: none). */
    String cookie;
    /** Health checks ({@link CheckKeywords}). */
    boolean check;
    long inter = ServerCheck.DEFAULT.inter();
    long fastinter;
    long downinter;
    int rise = ServerCheck.DEFAULT.rise();
    int fall = ServerCheck.DEFAULT.fall();
    int checkPort;
    String checkAddr;
    boolean checkSsl;
    String checkSni;
    String checkProto;
    java.util.List<String> checkAlpn;
    /** {@code check-send-proxy}. */
    boolean checkSendProxy;
    /** The agent check ({@link AgentKeywords}): {@code agent-check}, {@code agent-port|addr|inter|send}. */
    boolean agent;
    int agentPort;
    String agentAddr;
    long agentInter;
    String agentSend;
    /** {@code init-addr} methods (null: the default). */
    List<String> initAddr;
    /** HAProxy's pp_opts: the PROXY protocol versions set and the v2 extra fields (Server.PP_* bits). */
    int sendProxy;
    /** {@code resolvers}, {@code resolve-prefer}, {@code resolve-opts}, {@code resolve-net}. */
    dev.sluice.config.model.ServerDns dns = dev.sluice.config.model.ServerDns.DEFAULT;
    /** {@code observe}, {@code error-limit}, {@code on-error}, {@code on-marked-down|up} ({@link ObserveKeywords}). */
    dev.sluice.config.model.ServerObserve observe = dev.sluice.config.model.ServerObserve.DEFAULT;
    /** {@code pool-max-conn}, {@code pool-low-conn}, {@code pool-purge-delay} ({@link ServerPoolKeywords}). */
    dev.sluice.config.model.ServerPool pool = dev.sluice.config.model.ServerPool.DEFAULT;

    ServerParams copy() {
        ServerParams p = new ServerParams();
        p.weight = weight;
        p.id = id;
        p.backup = backup;
        p.disabled = disabled;
        p.initState = initState;
        p.maxconn = maxconn;
        p.maxqueue = maxqueue;
        p.minconn = minconn;
        p.slowstart = slowstart;
        p.cookie = cookie;
        p.check = check;
        p.inter = inter;
        p.fastinter = fastinter;
        p.downinter = downinter;
        p.rise = rise;
        p.fall = fall;
        p.checkPort = checkPort;
        p.checkAddr = checkAddr;
        p.checkSsl = checkSsl;
        p.checkSni = checkSni;
        p.checkProto = checkProto;
        p.checkAlpn = checkAlpn;
        p.checkSendProxy = checkSendProxy;
        p.agent = agent;
        p.agentPort = agentPort;
        p.agentAddr = agentAddr;
        p.agentInter = agentInter;
        p.agentSend = agentSend;
        p.sendProxy = sendProxy;
        p.initAddr = initAddr;
        p.dns = dns;
        p.observe = observe;
        p.pool = pool;
        return p;
    }
}
