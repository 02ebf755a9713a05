package air.mpj;

import air.channels.FrameCodec;
import air.channels.Transport;
import air.channels.bootstrap.MpjProvider;
import java.util.List;

/** Plugs the MPJ transport into the bootstrap (registered in {@code META-INF/services}). */
public final class MpjExpress implements MpjProvider {

    @Override
    public Joined join(List<String> initArgs, String description, boolean quietInit) {
        MpjWorld world = MpjWorld.of(initArgs, description, quietInit);
        MpjTransport transport = MpjTransport.start(world, new FrameCodec());
        String[] userArgs = world.userArgs();
        return new Joined() {
            @Override
            public Transport transport() {
                return transport;
            }

            @Override
            public String[] userArgs() {
                return userArgs.clone();
            }

            @Override
            public void leave() {
                transport.finalizeWorld();
            }
        };
    }
}
