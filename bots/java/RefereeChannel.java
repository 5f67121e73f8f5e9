import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/** Where the bot dials: a gRPC channel to CRAITS_SERVER, in each of its forms. */
final class RefereeChannel {
  private RefereeChannel() {}

  /**
   * A channel to CRAITS_SERVER as docs/protocol.md says: TLS for tls:// or https://, or for
   * host:port when CRAITS_TLS_CA names a CA (PEM; else the system's CAs are trusted); a unix:
   * socket stays plain whatever CRAITS_TLS_CA says (it never leaves the machine). A plain dial
   * beyond this machine is refused unless CRAITS_ALLOW_PLAINTEXT=1: the token would travel
   * readable to whoever answers.
   *
   * <p>Debian 12's Netty lacks what gRPC-Java needs for two of these: a native transport (for
   * a Unix socket, a sandbox's only way out) and ALPN over the JDK's TLS. So for those the
   * channel speaks plain HTTP/2 to a relay on a loopback port, which carries the bytes on over
   * the JDK's own Unix socket channel or TLS socket. With a Maven-built gRPC-Java (netty-shaded)
   * both work directly and the relay can go.
   */
  static ManagedChannel open(String server, String caFile)
      throws IOException, GeneralSecurityException {
    boolean hasCa = caFile != null && !caFile.isEmpty();
    String address = server;
    boolean tls = hasCa;
    for (String scheme : new String[] {"tls://", "https://"}) {
      if (server.startsWith(scheme)) {
        address = server.substring(scheme.length()).replaceAll("/+$", "");
        tls = true;
      }
    }
    if (address.startsWith("unix:")) {
      UnixDomainSocketAddress socket = UnixDomainSocketAddress.of(address.substring(5));
      address = relay(() -> {
        SocketChannel channel = SocketChannel.open(socket);
        return new Upstream(channel, channel);
      });
    } else if (tls) {
      SSLSocketFactory factory = tlsContext(hasCa ? caFile : null).getSocketFactory();
      int colon = address.lastIndexOf(':');
      String host = address.substring(0, colon).replaceAll("^\\[|\\]$", "");
      int port = Integer.parseInt(address.substring(colon + 1));
      address = relay(() -> {
        SSLSocket socket = (SSLSocket) factory.createSocket(host, port);
        socket.setTcpNoDelay(true);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setApplicationProtocols(new String[] {"h2"}); // gRPC is HTTP/2
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the name must match
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        return new Upstream(Channels.newChannel(socket.getInputStream()),
            Channels.newChannel(socket.getOutputStream()));
      });
    } else if (!"1".equals(System.getenv("CRAITS_ALLOW_PLAINTEXT")) && !thisMachine(address)) {
      throw new IOException("CRAITS_SERVER " + address + " is beyond this machine and the dial "
          + "is plain text, where anyone on the path can read the token: dial tls://" + address
          + " (with CRAITS_TLS_CA naming the organiser's CA), or on a network you trust set "
          + "CRAITS_ALLOW_PLAINTEXT=1");
    }
    return NettyChannelBuilder.forTarget(address).usePlaintext().build();
  }

  /**
   * Whether every address host:port names is this machine's (loopback, the unspecified
   * address, or one of its interfaces'), so that a plain-text dial keeps the token on it.
   */
  static boolean thisMachine(String address) {
    String host = address.substring(0, Math.max(address.lastIndexOf(':'), 0));
    try {
      for (InetAddress ip : InetAddress.getAllByName(host.replaceAll("^\\[|\\]$", ""))) {
        if (!ip.isLoopbackAddress() && !ip.isAnyLocalAddress()
            && NetworkInterface.getByInetAddress(ip) == null) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** TLS that trusts the CA in the PEM file {@code caFile}, or the system's CAs when null. */
  static SSLContext tlsContext(String caFile) throws IOException, GeneralSecurityException {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    if (caFile == null) {
      trust.init((KeyStore) null);
    } else {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      try (InputStream pem = new FileInputStream(caFile)) {
        for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
          store.setCertificateEntry("ca" + store.size(), ca);
        }
      }
      if (store.size() == 0) {
        throw new IOException("CRAITS_TLS_CA " + caFile + " holds no PEM certificate");
      }
      trust.init(store);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }

  /** The referee's end of a relayed connection: bytes from it, bytes to it. */
  record Upstream(ReadableByteChannel from, WritableByteChannel to) {}

  /** Opens a connection to the referee for the relay. */
  interface Dialler {
    Upstream open() throws IOException;
  }

  /** Listen on a loopback port and join each connection to a new one to the referee;
   * return the port's address. */
  static String relay(Dialler referee) throws IOException {
    ServerSocketChannel listener = ServerSocketChannel.open();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
    Thread acceptor = new Thread(() -> {
      while (true) {
        try {
          SocketChannel local = listener.accept();
          local.setOption(StandardSocketOptions.TCP_NODELAY, true); // no 40 ms waits per move
          try {
            Upstream upstream = referee.open();
            copy(local, upstream.to());
            copy(upstream.from(), local);
          } catch (IOException e) {
            System.err.println("craits-java-bot: cannot reach the referee: " + e.getMessage());
            local.close();
          }
        } catch (IOException e) {
          return;
        }
      }
    });
    acceptor.setDaemon(true);
    acceptor.start();
    return "127.0.0.1:" + listener.socket().getLocalPort();
  }

  private static void copy(ReadableByteChannel from, WritableByteChannel to) {
    Thread thread = new Thread(() -> {
      ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
      try (from; to) {
        while (from.read(buffer) >= 0) {
          buffer.flip();
          while (buffer.hasRemaining()) {
            to.write(buffer);
          }
          buffer.clear();
        }
      } catch (IOException e) {
        // one side closed: the gRPC stream's own status says what happened
      }
    });
    thread.setDaemon(true);
    thread.start();
  }
}
