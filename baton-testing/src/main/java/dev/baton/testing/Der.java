package dev.baton.testing;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The few ASN.1 DER encodings an X.509 certificate needs, so {@link TlsCertificates} can issue certificates
 * with the JDK alone (no keytool process, no Bouncy Castle). Each method returns one complete element: tag,
 * length, contents.
 */
final class Der {
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");

    private Der() {
    }

    static byte[] sequence(byte[]... elements) {
        return element(0x30, concat(elements));
    }

    static byte[] set(byte[]... elements) {
        return element(0x31, concat(elements));
    }

    static byte[] integer(BigInteger value) {
        return element(0x02, value.toByteArray());
    }

    static byte[] bool(boolean value) {
        return element(0x01, new byte[] {(byte) (value ? 0xff : 0)});
    }

    /** A BIT STRING whose bits are whole bytes. */
    static byte[] bitString(byte[] bytes) {
        byte[] contents = new byte[bytes.length + 1]; // the first byte counts the unused bits: none
        System.arraycopy(bytes, 0, contents, 1, bytes.length);
        return element(0x03, contents);
    }

    /** A BIT STRING of the named bits (bit 0 is the most significant bit of the first byte), as KeyUsage has. */
    static byte[] namedBits(int... bits) {
        int highest = 0;
        for (int bit : bits) {
            highest = Math.max(highest, bit);
        }
        byte[] contents = new byte[2 + highest / 8];
        for (int bit : bits) {
            contents[1 + bit / 8] |= (byte) (0x80 >>> (bit % 8));
        }
        contents[0] = (byte) (7 - highest % 8); // unused trailing bits
        return element(0x03, contents);
    }

    static byte[] octetString(byte[] bytes) {
        return element(0x04, bytes);
    }

    static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.", -1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            long arc = Long.parseLong(arcs[i]);
            int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(arc) + 6) / 7);
            for (int g = groups - 1; g >= 0; g--) {
                int sevenBits = (int) ((arc >>> (7 * g)) & 0x7f);
                out.write(g == 0 ? sevenBits : sevenBits | 0x80);
            }
        }
        return element(0x06, out.toByteArray());
    }

    /** UTCTime, valid for years 1950 to 2049. */
    static byte[] utcTime(ZonedDateTime time) {
        return element(0x17, UTC_TIME.format(time.withZoneSameInstant(ZoneOffset.UTC))
                .getBytes(StandardCharsets.US_ASCII));
    }

    /** An explicitly tagged, constructed element: {@code [n] { inner }}. */
    static byte[] explicit(int tagNumber, byte[] inner) {
        return element(0xa0 | tagNumber, inner);
    }

    /** An implicitly tagged primitive element: {@code [n] contents}, as GeneralName's dNSName and iPAddress. */
    static byte[] implicit(int tagNumber, byte[] contents) {
        return element(0x80 | tagNumber, contents);
    }

    /** Bytes already DER-encoded, such as {@code X500Principal.getEncoded()}, as they are. */
    static byte[] raw(byte[] encoded) {
        return encoded.clone();
    }

    static byte[] element(int tag, byte[] contents) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(contents.length + 6);
        out.write(tag);
        int length = contents.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(contents);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
