package air.workloads.ysb;

/**
 * One YSB-mem event with all seven fields materialised (YSB-SPEC section 5.2): primitive 64-bit
 * ids, small integers for the two enums, event time in ms and an IPv4 address as 32 bits.
 */
public record YsbEvent(long userId, long pageId, long adId, int adType, int eventType, long eventTime, int ipAddress) {

    public static final int VIEW = 0;
    public static final int CLICK = 1;
    public static final int PURCHASE = 2;

    private static final String[] AD_TYPES = {"banner", "modal", "sponsored-search", "mail", "mobile"};
    private static final String[] EVENT_TYPES = {"view", "click", "purchase"};

    public String adTypeName() {
        return AD_TYPES[adType];
    }

    public String eventTypeName() {
        return EVENT_TYPES[eventType];
    }

    public String ipText() {
        return ((ipAddress >>> 24) & 0xFF) + "." + ((ipAddress >>> 16) & 0xFF) + "." + ((ipAddress >>> 8) & 0xFF) + "." + (ipAddress & 0xFF);
    }

    /** The JSON debugging form of YSB-SPEC section 5.2. */
    public String toJson() {
        return "{\"user_id\":\"" + hex(userId) + "\",\"page_id\":\"" + hex(pageId) + "\",\"ad_id\":\"" + hex(adId)
                + "\",\"ad_type\":\"" + adTypeName() + "\",\"event_type\":\"" + eventTypeName()
                + "\",\"event_time\":" + eventTime + ",\"ip_address\":\"" + ipText() + "\"}";
    }

    public static String hex(long id) {
        String h = Long.toHexString(id);
        return "0".repeat(16 - h.length()) + h;
    }
}
