package dev.sluice.proxy.backend;

import dev.sluice.config.Addresses;
import java.util.List;

/**
 * One server's line of a server state file (version 1, what {@code show servers state} prints), checked as HAProxy
 * 2.6's srv_state_srv_update checks it, ready to be applied to the server at start-up ({@link Server#restore}). Built
 * by {@link #of}, which reports a line it refuses as HAProxy does ("server-state application failed for server ...").
 * Immutable.
 *
 * <p>{@code addr} is the address the server had (null for "-"): it becomes the server's address only when it was
 * declared with a name and {@code init-addr} has {@code last}; {@code port} is restored in every case (HAProxy 2.6 does
 * so, even when the configuration changed the port); {@code checkPort}/{@code checkAddr} when set (0, null: not).
 */
public record SavedServerState(String addr, int opState, int adminState, int uweight, int iweight, long sinceLastChange, int checkStatus,
        int checkResult, int checkHealth, int checkState, int agentState, int port, int checkPort, String checkAddr, int agentPort,
        String agentAddr) {

    /** HAProxy's srv_op_state values. */
    public static final int STOPPED = 0;
    public static final int STARTING = 1;
    public static final int RUNNING = 2;
    public static final int STOPPING = 3;

    /** HAProxy's srv_admin_state bits (SRV_ADMF_*). */
    static final int FMAINT = 0x01;
    static final int IMAINT = 0x02;
    static final int CMAINT = 0x04;
    static final int FDRAIN = 0x08;
    static final int IDRAIN = 0x10;
    static final int RMAINT = 0x20;
    static final int HMAINT = 0x40;

    /** HAProxy's check state bits (CHK_ST_*). */
    static final int CHK_INPROGRESS = 0x01;
    static final int CHK_CONFIGURED = 0x02;
    static final int CHK_ENABLED = 0x04;
    static final int CHK_PAUSED = 0x08;
    static final int CHK_AGENT = 0x10;

    /** HAProxy 2.6's HCHK_STATUS_SIZE: check statuses are below it. */
    private static final int CHECK_STATUS_SIZE = 22;
    /** SRV_UWGHT_MAX. */
    private static final int WEIGHT_MAX = 256;

    /**
     * The state of server {@code backend/server} from the fields of its line after the four names ({@code srv_addr} on, 16
     * to 21 of them), or null when a field is invalid: then nothing is applied and {@code warnings} gets HAProxy's
     * "server-state application failed for server 'b/s', invalid ... value '...'" (every invalid field named).
     */
    public static SavedServerState of(String backend, String server, List<String> f, List<String> warnings) {
        StringBuilder msg = new StringBuilder();
        long op = strtol(f.get(1));
        if (op == BAD || op != STOPPED && op != STARTING && op != RUNNING && op != STOPPING) {
            invalid(msg, "srv_op_state", f.get(1));
        }
        long admin = strtol(f.get(2));
        long kept = admin == BAD ? BAD : keptAdmin(admin);
        if (kept == BAD || !admissibleAdmin(kept)) {
            invalid(msg, "srv_admin_state", f.get(2));
        }
        long uweight = strtol(f.get(3));
        if (uweight == BAD || uweight < 0 || uweight > WEIGHT_MAX) {
            invalid(msg, "srv_uweight", f.get(3));
        }
        long iweight = strtol(f.get(4));
        if (iweight == BAD || iweight < 0 || iweight > WEIGHT_MAX) {
            invalid(msg, "srv_iweight", f.get(4));
        }
        long since = strtol(f.get(5));
        if (since == BAD) {
            invalid(msg, "srv_last_time_change", f.get(5));
        }
        long status = strtol(f.get(6));
        if (status == BAD || (short) status >= CHECK_STATUS_SIZE) {
            invalid(msg, "srv_check_status", f.get(6));
        }
        long result = strtol(f.get(7));
        if (result == BAD || result < 0 || result > 4) {
            invalid(msg, "srv_check_result", f.get(7));
        }
        long health = strtol(f.get(8));
        if (health == BAD) {
            invalid(msg, "srv_check_health", f.get(8));
        }
        int known = CHK_INPROGRESS | CHK_CONFIGURED | CHK_ENABLED | CHK_PAUSED | CHK_AGENT;
        long checkState = strtol(f.get(9));
        if (checkState == BAD || (checkState & ~known) != 0) {
            invalid(msg, "srv_check_state", f.get(9));
        }
        long agentState = strtol(f.get(10));
        if (agentState == BAD || (agentState & ~known) != 0) {
            invalid(msg, "srv_agent_state", f.get(10));
        }
        long bkForced = strtol(f.get(11));
        if (bkForced != 0 && bkForced != 1) {
            invalid(msg, "bk_f_forced_id", f.get(11));
        }
        long srvForced = strtol(f.get(12));
        if (srvForced != 0 && srvForced != 1) {
            invalid(msg, "srv_f_forced_id", f.get(12));
        }
        String fqdn = f.get(13);
        if (!fqdn.startsWith("-") && (fqdn.length() > 255 || !fqdn.chars().allMatch(SavedServerState::domainChar))) {
            invalid(msg, "srv_fqdn", fqdn);
        }
        // strl2uic: the leading digits, 0 without
        long port = 0;
        String ps = f.get(14);
        for (int i = 0; i < ps.length() && Character.isDigit(ps.charAt(i)) && port <= 0xFFFF_FFFFL; i++) {
            port = port * 10 + ps.charAt(i) - '0';
        }
        port &= 0xFFFF_FFFFL;
        if (port > 65535) {
            invalid(msg, "srv_port", ps);
        }
        if (!msg.isEmpty()) {
            warnings.add("server-state application failed for server '" + backend + "/" + server + "'" + msg);
            return null;
        }
        String addr = f.get(0).equals("-") ? null : f.get(0);
        int checkPort = 0;
        if (f.size() > 17 && !f.get(17).equals("0")) {
            checkPort = (int) Math.max(0, Math.min(65535, strtol(f.get(17))));
        }
        String checkAddr = f.size() > 18 && !f.get(18).equals("-") ? f.get(18) : null;
        String agentAddr = f.size() > 19 && !f.get(19).equals("-") ? f.get(19) : null;
        int agentPort = 0;
        if (f.size() > 20 && !f.get(20).equals("0")) {
            agentPort = (int) Math.max(0, Math.min(65535, strtol(f.get(20))));
        }
        return new SavedServerState(addr, (int) op, (int) kept, (int) uweight, (int) iweight, since, (int) status, (int) result, (int) health,
                (int) checkState, (int) agentState, (int) port, checkPort, checkAddr, agentPort, agentAddr);
    }

    /** The admin state bits a line restores: not those the configuration, a check or DNS sets again (IDRAIN, IMAINT, HMAINT, RMAINT). */
    static int keptAdmin(long admin) {
        return (int) (admin & ~IDRAIN & ~IMAINT & ~HMAINT & ~RMAINT);
    }

    /** Whether HAProxy 2.6 applies these kept admin bits (srv_state_srv_update's accepted combinations). */
    static boolean admissibleAdmin(long kept) {
        return kept == 0 || kept == FMAINT || kept == CMAINT || kept == (CMAINT | FMAINT) || kept == (CMAINT | FDRAIN) || kept == FDRAIN;
    }

    /** The address of the line as an IP literal, or null ("-", or not an address). */
    public java.net.InetAddress address() {
        return addr == null ? null : Addresses.literal(addr);
    }

    private static void invalid(StringBuilder msg, String field, String value) {
        msg.append(", invalid ").append(field).append(" value '").append(value).append('\'');
    }

    private static boolean domainChar(int c) {
        return Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '.' || c == '_';
    }

    /** What {@link #strtol} answers when no digit was read (or the value overflows). */
    public static final long BAD = Long.MIN_VALUE;

    /**
     * C's strtol in base 10 as HAProxy uses it: leading blanks, a sign, the digits; what follows is ignored; no digit (or
     * an overflow) is {@link #BAD}.
     */
    public static long strtol(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        int start = i;
        long v = 0;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            if (v > (Long.MAX_VALUE - (s.charAt(i) - '0')) / 10) {
                return BAD;
            }
            v = v * 10 + s.charAt(i) - '0';
            i++;
        }
        return i == start ? BAD : neg ? -v : v;
    }
}
