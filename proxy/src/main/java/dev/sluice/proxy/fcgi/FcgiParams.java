package dev.sluice.proxy.fcgi;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.rules.AuthFetches;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The FastCGI parameters of a request, as HAProxy 2.6 builds them (src/mux_fcgi.c, fcgi_strm_send_params,
 * fcgi_set_default_param; doc section 10.2): first the request's header fields as {@code HTTP_*} (Content-Length and
 * Content-Type as CONTENT_LENGTH and CONTENT_TYPE; the hidden ones and names with characters other than letters, digits
 * and '-' left out), then the {@code set-param} values by name, then the CGI/1.1 defaults that no {@code set-param}
 * gave: GATEWAY_INTERFACE, DOCUMENT_ROOT, SCRIPT_NAME, PATH_INFO, REQUEST_URI, REQUEST_METHOD, QUERY_STRING,
 * SERVER_NAME, SERVER_PORT, SERVER_PROTOCOL, REMOTE_ADDR, REMOTE_PORT, SCRIPT_FILENAME, PATH_TRANSLATED, CONTENT_LENGTH,
 * SERVER_SOFTWARE, HTTPS; an empty value is not sent. Names are sent in upper case, every character but letters and
 * digits as '_'. Stateless.
 */
public final class FcgiParams {
    private FcgiParams() {
    }

    /** The application's settings the defaults use. */
    public record App(String docroot, String index, Pattern pathInfo) {
    }

    /** What the connection knows of the exchange. */
    public record Exchange(InetSocketAddress client, InetSocketAddress frontend, boolean https, String software,
            AsciiString serverIdHeader, String serverName) {
    }

    /**
     * The pairs (name, value) for {@code head}; {@code setParams} the {@code set-param} values by name (lower case),
     * {@code hidden} the header names (lower case) left out, {@code bodyLength} the body's length when the request has
     * no Content-Length (0: none). Throws {@link IllegalArgumentException} where HAProxy fails the request (no path,
     * a bad %-encoding, a line feed or NUL in a decoded path matched by path-info).
     */
    public static List<String[]> build(App app, RequestHead head, Map<String, String> setParams, Set<String> hidden, Exchange x,
            long bodyLength) {
        List<String[]> out = new ArrayList<>();
        Map<String, String> params = new TreeMap<>(authParams(head.fields()));
        params.putAll(setParams);
        String docroot = app.docroot();
        String scriptName = null;
        String pathInfo = null;
        String uri = null;
        boolean maskScriptName = false;
        boolean maskPathInfo = false;
        boolean maskUri = false;
        boolean maskQs = false;
        Set<String> masked = new java.util.HashSet<>();
        String serverName = null;
        boolean contentLength = false;
        HttpFields f = head.fields();
        for (int i = 0; i < f.size(); i++) {
            String name = f.name(i).toString().toLowerCase(java.util.Locale.ROOT);
            String value = f.value(i).toString();
            if (hidden.contains(name) || !restrictedName(name)) {
                continue;
            }
            if (name.equals("content-length")) {
                out.add(new String[] {"CONTENT_LENGTH", value});
                contentLength = true;
                continue;
            }
            if (name.equals("content-type")) {
                out.add(new String[] {"CONTENT_TYPE", value});
                continue;
            }
            if (name.equals("host")) {
                serverName = value;
            } else if (name.equals("te")) {
                int t = value.indexOf("trailers");
                if (t < 0 || value.length() > t + 8 && value.charAt(t + 8) != ',') {
                    continue;
                }
                value = "trailers";
            }
            if (x.serverIdHeader() != null && x.serverIdHeader().contentEqualsIgnoreCase(name)) {
                continue;
            }
            out.add(new String[] {encodeName("http_" + name), value});
        }
        for (Map.Entry<String, String> e : params.entrySet()) {
            String n = e.getKey();
            String v = e.getValue();
            switch (n) {
                case "document_root" -> docroot = v;
                case "script_name" -> {
                    maskScriptName = true;
                    scriptName = v;
                }
                case "path_info" -> {
                    maskPathInfo = true;
                    pathInfo = v;
                }
                case "request_uri" -> {
                    maskUri = true;
                    uri = v;
                }
                case "query_string" -> maskQs = true;
                default -> {
                }
            }
            masked.add(n);
            out.add(new String[] {encodeName(n), v});
        }
        if (x.serverIdHeader() != null && x.serverName() != null) {
            out.add(new String[] {encodeName("http_" + x.serverIdHeader()), x.serverName()});
        }
        // the defaults
        String meth = head.method().toString();
        if (!maskUri) {
            uri = uri(head.target().toString());
        }
        String vsn = head.version().text();
        String srvPort = Integer.toString(x.frontend() == null ? 0 : x.frontend().getPort());
        if (serverName == null || serverName.isEmpty()) {
            serverName = x.frontend() == null || x.frontend().getAddress() == null ? null : x.frontend().getAddress().getHostAddress();
        }
        String remAddr = x.client() == null || x.client().getAddress() == null ? null : x.client().getAddress().getHostAddress();
        String remPort = Integer.toString(x.client() == null ? 0 : x.client().getPort());
        String contLen = contentLength ? null : Long.toString(bodyLength);
        String qs = null;
        String software = null;
        boolean end = false;
        if (!(maskScriptName && maskPathInfo && maskQs)) {
            String path = path(uri);
            if (!maskScriptName && path.isEmpty()) {
                throw new IllegalArgumentException("no path to make SCRIPT_NAME from");
            }
            int q = path.indexOf('?');
            if (q >= 0) {
                if (!maskQs && q + 1 < path.length()) {
                    qs = path.substring(q + 1);
                }
                path = path.substring(0, q);
            }
            if (maskScriptName) {
                // as HAProxy: the path info is not deduced, and the defaults after it are not set either
                maskPathInfo = true;
                end = true;
            } else {
                String decoded = urlDecode(path);
                scriptName = decoded;
                if (app.pathInfo() != null) {
                    if (decoded.indexOf('\n') >= 0 || decoded.indexOf('\0') >= 0) {
                        throw new IllegalArgumentException("line feed or NUL in the decoded path");
                    }
                    Matcher m = app.pathInfo().matcher(decoded);
                    if (m.find() && m.groupCount() >= 1 && m.group(1) != null) {
                        scriptName = m.group(1);
                        if (!maskPathInfo && m.groupCount() >= 2 && m.group(2) != null) {
                            pathInfo = m.group(2);
                        }
                    }
                }
                if (app.index() != null && !app.index().isEmpty() && scriptName.endsWith("/")) {
                    scriptName = scriptName + app.index();
                }
            }
        }
        if (!end) {
            software = x.software();
        }
        add(out, masked, "gateway_interface", "GATEWAY_INTERFACE", "CGI/1.1");
        add(out, masked, "document_root", "DOCUMENT_ROOT", docroot);
        add(out, masked, "script_name", "SCRIPT_NAME", scriptName);
        add(out, masked, "path_info", "PATH_INFO", maskPathInfo && !masked.contains("path_info") ? null : pathInfo);
        add(out, masked, "request_uri", "REQUEST_URI", uri);
        add(out, masked, "request_meth", "REQUEST_METHOD", meth);
        add(out, masked, "query_string", "QUERY_STRING", qs);
        add(out, masked, "server_name", "SERVER_NAME", serverName);
        add(out, masked, "server_port", "SERVER_PORT", srvPort);
        add(out, masked, "server_protocol", "SERVER_PROTOCOL", vsn);
        add(out, masked, "remote_addr", "REMOTE_ADDR", remAddr);
        add(out, masked, "remote_port", "REMOTE_PORT", remPort);
        add(out, masked, "script_filename", "SCRIPT_FILENAME", docroot + (scriptName == null ? "" : scriptName));
        add(out, masked, "path_translated", "PATH_TRANSLATED", pathInfo == null || pathInfo.isEmpty() ? null : docroot + pathInfo);
        if (!contentLength) {
            add(out, masked, "content_length", "CONTENT_LENGTH", contLen);
        }
        add(out, masked, "server_software", "SERVER_SOFTWARE", software);
        add(out, masked, "https", "HTTPS", x.https() ? "on" : null);
        return out;
    }

    private static void add(List<String[]> out, Set<String> masked, String key, String name, String value) {
        if (masked.contains(key) || value == null || value.isEmpty()) {
            return;
        }
        out.add(new String[] {name, value});
    }

    /**
     * REMOTE_USER and AUTH_TYPE, the parameters every application sets from the Authorization field (HAProxy's implicit
     * {@code set-param REMOTE_USER %[http_auth_user]} and {@code AUTH_TYPE %[http_auth_type]}): the user of Basic
     * credentials, the scheme when it is Basic or Bearer; the field read as those fetches read it ({@link AuthFetches}).
     */
    static Map<String, String> authParams(HttpFields f) {
        AsciiString auth = null;
        for (int i = 0; i < f.size() && auth == null; i++) {
            if (f.name(i).contentEqualsIgnoreCase("authorization")) {
                auth = f.value(i);
            }
        }
        if (auth == null) {
            return Map.of();
        }
        AuthFetches.Credentials c = AuthFetches.read(auth);
        Map<String, String> out = new TreeMap<>();
        if (c != null) {
            out.put("auth_type", c.type());
            if (c.basic()) {
                out.put("remote_user", c.user());
            }
        }
        return out;
    }

    /** HAProxy's parameter name: upper case, every character but a letter or a digit as '_'. */
    public static String encodeName(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            b.append(c < 128 && Character.isLetterOrDigit(c) ? Character.toUpperCase(c) : '_');
        }
        return b.toString();
    }

    /** {@code option http-restrict-req-hdr-names delete}, on by default for FastCGI backends: letters, digits and '-' only. */
    private static boolean restrictedName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c < 128 && Character.isLetterOrDigit(c)) && c != '-') {
                return false;
            }
        }
        return true;
    }

    /** The URI as an HTTP/1 server gets it: the path and query of an absolute one. */
    static String uri(String target) {
        int scheme = target.indexOf("://");
        if (scheme > 0 && target.indexOf('/') > scheme) {
            int slash = target.indexOf('/', scheme + 3);
            return slash < 0 ? "/" : target.substring(slash);
        }
        return target;
    }

    /** The path part of a URI, its query string included (HAProxy's http_parse_path); empty when it has none. */
    static String path(String uri) {
        if (uri.startsWith("/")) {
            return uri;
        }
        if (uri.equals("*")) {
            return "";
        }
        int scheme = uri.indexOf("://");
        if (scheme > 0) {
            int slash = uri.indexOf('/', scheme + 3);
            return slash < 0 ? "" : uri.substring(slash);
        }
        return "";
    }

    /** %-decoding ('+' stays); throws on a bad escape, as HAProxy's url_decode fails. */
    static String urlDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new IllegalArgumentException("bad %-escape");
                }
                int h = Character.digit(s.charAt(i + 1), 16);
                int l = Character.digit(s.charAt(i + 2), 16);
                if (h < 0 || l < 0) {
                    throw new IllegalArgumentException("bad %-escape");
                }
                b.write(h << 4 | l);
                i += 2;
            } else {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
