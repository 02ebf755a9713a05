package air.runtime.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;

/**
 * Kryo's input over one value's bytes that refuses a string claiming more characters than bytes
 * are left: Kryo sizes the string's buffer from the count it reads, so a few bytes could otherwise
 * ask for gigabytes. (Collections, maps and arrays are bounded the same way: {@link BoundedSizes}.)
 */
final class BoundedInput extends Input {

    @Override
    public String readString() {
        requireChars();
        return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
        requireChars();
        return super.readStringBuilder();
    }

    /** A UTF-8 string starts with its character count + 1, which no more characters than bytes left can follow. */
    private void requireChars() {
        int start = position();
        if (start >= limit() || !readVarIntFlag()) {
            return; // underflow is Kryo's to report; an ASCII string ends at its last byte and needs no count
        }
        int count = readVarIntFlag(true) - 1;
        int left = limit() - position();
        setPosition(start);
        if (count > left) {
            throw new KryoException("a string claims " + count + " characters but only " + left + " bytes are left");
        }
    }
}
