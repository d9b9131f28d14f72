package dev.sluice.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cookie scanner on the inputs where readings differ: several elements, repeated names, empty and quoted values,
 * spaces around {@code =} and {@code ;}, names without {@code =}, {@code $} attributes, values starting with spaces. The
 * expected values are what HAProxy 2.6.12 returns for the same fields (the regtest CookieFetchParityTest compares live).
 */
class CookiesTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The elements of a field value, each as its text. */
    private static List<String> elements(String value) {
        byte[] b = bytes(value);
        List<String> out = new ArrayList<>();
        for (int p = 0; p <= b.length;) {
            long el = Cookies.element(b, p, b.length);
            out.add(value.substring(Cookies.from(el), Cookies.to(el)));
            p = Cookies.nextElement(b, Cookies.to(el), b.length);
        }
        return out;
    }

    /** Every value {@link Cookies#find} gives for {@code name} in one element, in order. */
    private static List<String> values(String element, String name, boolean list) {
        byte[] b = bytes(element);
        List<String> out = new ArrayList<>();
        for (long r = Cookies.find(b, 0, b.length, bytes(name), list); r >= 0;
                r = Cookies.find(b, Cookies.afterValue(b, Cookies.to(r), b.length), b.length, bytes(name), list)) {
            out.add(element.substring(Cookies.from(r), Cookies.to(r)));
        }
        return out;
    }

    @Test
    void elementsAreTheCommaSeparatedValuesTrimmed() {
        assertThat(elements("a=1, b=2")).containsExactly("a=1", "b=2");
        assertThat(elements(" a=1 ,b=2 ")).containsExactly("a=1", "b=2");
        // empty elements are elements (the fetches skip them)
        assertThat(elements("a=1,")).containsExactly("a=1", "");
        assertThat(elements("a=1,,b=2")).containsExactly("a=1", "", "b=2");
        assertThat(elements("")).containsExactly("");
        // a comma between quotes does not separate; an unclosed quote runs to the end
        assertThat(elements("a=\"x,y\", b")).containsExactly("a=\"x,y\"", "b");
        assertThat(elements("a=\"x\\\",y\", b")).containsExactly("a=\"x\\\",y\"", "b");
        assertThat(elements("a=\"open, b=1")).containsExactly("a=\"open, b=1");
    }

    @ParameterizedTest(name = "[{0}] {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // element | name | values found in a request (a list of cookies), joined with '/'; - for none
        "a=1; b=2|a|1", "a=1; b=2|b|2", "a=1; b=2||1/2", "a=1; a=2; a=3|a|1/2/3",
        // spaces around the name, the '=' and the value are not theirs
        "a = 1|a|1", "a= 1|a|1", "` a =1 ; b = 2 `|b|2", "a=1 2|a|1 2", "a=x y z|a|x y z",
        // empty values, and the bound HAProxy puts on the search: the name and one byte must fit after a part's start
        "a=; b=1|a|``", "a=1; a=|a|1/", "a=|a|-", "a=||``",
        // no '=': no cookie; '$' names are attributes
        "a|a|-", "a; b=1|a|-", "a; b=1||1", "b; a=1|a|1", "a;a=2|a|2", "$Version=1; a=1; $Path=/||1", "$a=1|a|-", "$a=1||-",
        // ',' ends a cookie in a request too; quotes keep ';' and ','
        "a=1,b=2|b|2", "a=\"x;y\"; b=1|a|\"x;y\"", "a=\"x;y\"; b=1|b|1", "a=\"x,y\"|a|\"x,y\"", "a=\"open; b=1|a|\"open; b=1",
        // names are exact and case-sensitive
        "ab=1; a=2|a|2", "aa=1|a|-", "A=1|a|-", "=1; a=2|a|2", "=1; a=2||1/2", "a=1=2|a|1=2", "a=1\tb=2|a|1\tb=2"})
    void requestCookies(String element, String name, String expected) {
        List<String> got = values(element, name == null ? "" : name, true);
        assertThat(got.isEmpty() ? "-" : String.join("/", got)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "[{0}] {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // element | name | values found in a Set-Cookie element: its first cookie only, attributes are not cookies
        "a=1|a|1", "a=1; Path=/|a|1", "a=1; Path=/||1//", "b=1; a=2|a|-", "b=1; a=2||1/2", "Path=/; a=1|a|-",
        "a= 1 ; Path=/|a|1", "a = 3|a|3", "a=1; a=2|a|1/2", "a=|a|-", "a=||``", "a=\"q;w\"; b=2|a|\"q;w\"",
        // parts before the first cookie that are none (no '=', a '$' name) are skipped
        "foo; a=1|a|1", "$x=1; a=2|a|2", ";a=1|a|1", "a|a|-", "a=1;b|a|1",
        // ',' ends a value, not a name
        "a=1, a=2|a|1/2", "a=x; Max-Age=3|a|x"})
    void setCookieElements(String element, String name, String expected) {
        List<String> got = values(element, name == null ? "" : name, false);
        assertThat(got.isEmpty() ? "-" : String.join("/", got)).isEqualTo(expected);
    }

    @Test
    void findReadsWithinTheBoundsItIsGiven() {
        // a value seen through an offset, as AsciiString views of a received head are
        byte[] b = bytes("xxCookie: a=1; b=2yy");
        long r = Cookies.find(b, 10, 18, bytes("b"), true);
        assertThat(new String(b, Cookies.from(r), Cookies.to(r) - Cookies.from(r), StandardCharsets.ISO_8859_1)).isEqualTo("2");
        assertThat(Cookies.find(b, 10, 18, bytes("yy"), true)).isEqualTo(-1);
    }

    /** Walks a field value with the cursor, stripping as the rewriting walks do; returns the parts read and the result. */
    private static String walk(String value, boolean list) {
        byte[] b = bytes(value);
        int end = b.length;
        Cookies.Cursor k = new Cookies.Cursor();
        StringBuilder parts = new StringBuilder();
        boolean first = true;
        for (int prev = 0; prev < end; prev = k.next) {
            k.read(b, prev, end, first, list);
            first = false;
            if (k.isAttribute(b, end)) {
                parts.append("[$]");
                continue;
            }
            if (!k.hasEqual()) {
                parts.append("[no=:").append(new String(b, k.attBeg, k.attEnd - k.attBeg, StandardCharsets.ISO_8859_1)).append(']');
                continue;
            }
            end = k.strip(b, end);
            assertThat(k.equal).isEqualTo(k.attEnd);
            assertThat(k.valBeg).isEqualTo(k.equal + 1);
            parts.append('[').append(new String(b, k.attBeg, k.attEnd - k.attBeg, StandardCharsets.ISO_8859_1)).append('|')
                    .append(new String(b, k.valBeg, k.valEnd - k.valBeg, StandardCharsets.ISO_8859_1)).append(']');
        }
        return parts + " " + new String(b, 0, end, StandardCharsets.ISO_8859_1);
    }

    @Test
    void theCursorReadsEveryCookieAndStripsTheSpacesAroundEquals() {
        assertThat(walk("a=1; b=2", true)).isEqualTo("[a|1][b|2] a=1; b=2");
        assertThat(walk("a = 1 ;b=  2 ; c", true)).isEqualTo("[a|1][b|2][no=:c] a=1 ;b=2 ; c");
        assertThat(walk("a=1, b = 2", true)).isEqualTo("[a|1][b|2] a=1, b=2");
        assertThat(walk("$V=1; a= 1; $P = /", true)).isEqualTo("[$][a|1][$] $V=1; a=1; $P = /");
        assertThat(walk("a=\"x ; y\" ; b=", true)).isEqualTo("[a|\"x ; y\"][b|] a=\"x ; y\" ; b=");
        // a value that starts with spaces (a folded field), and nothing but delimiters
        assertThat(walk("   ;a =1", true)).isEqualTo("[no=:][a|1]    ;a=1");
        assertThat(walk(";;", true)).isEqualTo("[no=:][no=:][no=:] ;;");
        // without list, a comma stays in the name
        assertThat(walk("a, b = 1", false)).isEqualTo("[a, b|1] a, b=1");
    }

    @Test
    void valueEndsRespectQuotedPairs() {
        byte[] b = bytes("\"x\\\";y\";z");
        assertThat(Cookies.valueEnd(b, 0, b.length)).isEqualTo(7);
        assertThat(Cookies.elementEnd(bytes("\"a,b\",c"), 0, 7)).isEqualTo(5);
        assertThat(Cookies.valueEnd(bytes("abc"), 0, 3)).isEqualTo(3);
    }
}
