package dev.sluice.proxy.check;

/**
 * HAProxy's health-check statuses ({@code check_status} in {@code show stat}): the short name, the description
 * the logs print, what it means for the health counter, and HAProxy's enum value ({@code srv_check_status} in
 * {@code show servers state}). Statuses from {@link #L7OK} on carry an HTTP status code.
 */
public enum CheckStatus {
    UNKNOWN(0, "UNK", "Unknown", Result.UNKNOWN),
    INI(1, "INI", "Initializing", Result.UNKNOWN),
    /** Set by the analysis of live traffic ({@code observe} with {@code on-error}): as a failed check, with no duration. */
    HANA(4, "HANA", "Health analyze", Result.FAILED),
    SOCKERR(5, "SOCKERR", "Socket error", Result.FAILED),
    L4OK(6, "L4OK", "Layer4 check passed", Result.PASSED),
    L4TOUT(7, "L4TOUT", "Layer4 timeout", Result.FAILED),
    L4CON(8, "L4CON", "Layer4 connection problem", Result.FAILED),
    L6OK(9, "L6OK", "Layer6 check passed", Result.PASSED),
    L6TOUT(10, "L6TOUT", "Layer6 timeout", Result.FAILED),
    L6RSP(11, "L6RSP", "Layer6 invalid response", Result.FAILED),
    L7TOUT(12, "L7TOUT", "Layer7 timeout", Result.FAILED),
    L7RSP(13, "L7RSP", "Layer7 invalid response", Result.FAILED),
    L7OK(15, "L7OK", "Layer7 check passed", Result.PASSED),
    L7OKC(16, "L7OKC", "Layer7 check conditionally passed", Result.CONDPASS),
    L7STS(17, "L7STS", "Layer7 wrong status", Result.FAILED),
    PROCERR(18, "PROCERR", "External check error", Result.FAILED),
    PROCTOUT(19, "PROCTOUT", "External check timeout", Result.FAILED),
    PROCOK(20, "PROCOK", "External check passed", Result.PASSED);

    /** What a status does to the health counter (HAProxy's CHK_RES_*, with their numbers for {@code srv_check_result}). */
    public enum Result {
        UNKNOWN(0), FAILED(2), PASSED(3), CONDPASS(4);

        private final int code;

        Result(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    private final int code;
    private final String info;
    private final String description;
    private final Result result;

    CheckStatus(int code, String info, String description, Result result) {
        this.code = code;
        this.info = info;
        this.description = description;
        this.result = result;
    }

    /** HAProxy's enum value. */
    public int code() {
        return code;
    }

    /** The short name ({@code L7OK}). */
    public String info() {
        return info;
    }

    /** The description ({@code Layer7 check passed}). */
    public String description() {
        return description;
    }

    public Result result() {
        return result;
    }

    /** Whether it carries an HTTP status code (HAProxy's statuses past L57DATA). */
    public boolean hasCode() {
        return code > 14;
    }

    /** Whether the check ran to an end (a duration is known). */
    public boolean finished() {
        return code >= 3;
    }

    /** The status an {@code ok-status}/{@code error-status}/{@code tout-status} option names. */
    public static CheckStatus named(String info) {
        for (CheckStatus s : values()) {
            if (s.info.equals(info)) {
                return s;
            }
        }
        throw new IllegalArgumentException(info);
    }
}
