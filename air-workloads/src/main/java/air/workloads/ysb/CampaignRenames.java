package air.workloads.ysb;

/**
 * A changelog of campaign names beside the YSB events, for the stream-table enrichment: in round
 * {@code r >= 0} every campaign gets the name version {@code r}, one campaign every 100 ms of
 * event time from {@code T0 + (r - 1) * 10 s}, in a fixed order (position {@code p} renames
 * campaign {@code 37 p mod 100}). Round 0 names every campaign before the first event; in window
 * {@code w} a view of a campaign sees version {@code w} before that campaign's rename in the
 * window and {@code w + 1} from it on. Change {@code j} is round {@code j / 100}, position
 * {@code j mod 100}: in event-time order, pure in {@code j}.
 */
public final class CampaignRenames {

    /** A campaign's new name from {@code eventTime} on. */
    public record Rename(long campaignId, int version, long eventTime) {
        public String name() {
            return "campaign-" + YsbEvent.hex(campaignId) + "-v" + version;
        }
    }

    private final YsbGenerator generator;

    public CampaignRenames(YsbGenerator generator) {
        this.generator = generator;
    }

    /** The changes that cover {@code n} events: one round per window and one before. */
    public long count(long n) {
        return (generator.windows(n) + 1) * YsbGenerator.CAMPAIGNS;
    }

    public Rename rename(long j) {
        int round = (int) (j / YsbGenerator.CAMPAIGNS);
        int position = (int) (j % YsbGenerator.CAMPAIGNS);
        int campaign = position * 37 % YsbGenerator.CAMPAIGNS;
        return new Rename(generator.campaignId(campaign), round, YsbGenerator.T0 + (round - 1) * YsbGenerator.WINDOW_MS + position * 100L);
    }

    /** The position in every round of campaign index {@code c} (37 * 73 = 1 mod 100). */
    public static int positionOf(int campaign) {
        return campaign * 73 % YsbGenerator.CAMPAIGNS;
    }

    /** The name version campaign index {@code c} has at event time {@code t >= T0}: what the enrichment must see. */
    public static int versionAt(int campaign, long t) {
        long offset = t - YsbGenerator.T0;
        int window = (int) (offset / YsbGenerator.WINDOW_MS);
        return offset % YsbGenerator.WINDOW_MS >= positionOf(campaign) * 100L ? window + 1 : window;
    }
}
