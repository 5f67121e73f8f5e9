import craits.v1.RefereeGrpc;
import craits.v1.RefereeOuterClass.BotMessage;
import craits.v1.RefereeOuterClass.BotPacket;
import craits.v1.RefereeOuterClass.DecisionRequest;
import craits.v1.RefereeOuterClass.ErrorCode;
import craits.v1.RefereeOuterClass.Hello;
import craits.v1.RefereeOuterClass.MoveKind;
import craits.v1.RefereeOuterClass.MoveRejected;
import craits.v1.RefereeOuterClass.MoveReply;
import craits.v1.RefereeOuterClass.ProtocolVersion;
import craits.v1.RefereeOuterClass.RefereeMessage;
import craits.v1.RefereeOuterClass.RefereePacket;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A Craits bot in Java: it speaks the referee's gRPC protocol (docs/protocol.md) with code
 * generated from proto/craits/v1/referee.proto, and plays by the one method a contestant
 * rewrites, {@link #choose}.
 *
 * <p>The referee starts it with CRAITS_SERVER and CRAITS_TOKEN set. It opens one
 * Referee.Connect stream, says Hello, and answers every decision of a packet in one packet.
 * Exit status: 0 when the referee ends the stream or shuts down, 2 when it refuses the bot (or
 * the environment is incomplete), 3 when the referee cannot be reached or the stream breaks.
 */
public final class Bot {
  /**
   * The strategy: the index, in the request's legal moves, of the move to play. The request
   * holds everything the seat may know (getObservation(): the hand, the top card, the count,
   * every seat's hand size, the history). This one gets rid of a card when it can (the first
   * play), else takes the first legal move: index 0 is always legal.
   */
  static int choose(DecisionRequest request) {
    for (int i = 0; i < request.getLegalMovesCount(); i++) {
      if (request.getLegalMoves(i).getKind() == MoveKind.MOVE_KIND_PLAY) {
        return i;
      }
    }
    return 0;
  }

  static final int EXIT_OK = 0;
  static final int EXIT_REFUSED = 2;
  static final int EXIT_UNREACHABLE = 3;
  private static final Object END = new Object(); // the referee ended the stream normally

  public static void main(String[] args) throws InterruptedException {
    System.exit(run());
  }

  static int run() throws InterruptedException {
    String server = System.getenv("CRAITS_SERVER");
    String token = System.getenv("CRAITS_TOKEN");
    if (server == null || server.isEmpty() || token == null || token.isEmpty()) {
      say("set CRAITS_SERVER (host:port, tls://host:port or unix:/path) and CRAITS_TOKEN");
      return EXIT_REFUSED;
    }
    ManagedChannel channel;
    try {
      channel = RefereeChannel.open(server, System.getenv("CRAITS_TLS_CA"));
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      say("cannot dial " + server + ": " + e.getMessage());
      return EXIT_REFUSED;
    }
    try {
      return play(RefereeGrpc.newStub(channel), token);
    } finally {
      channel.shutdownNow();
    }
  }

  /** Say Hello, then answer the referee until the stream ends; return the exit status. */
  static int play(RefereeGrpc.RefereeStub stub, String token) throws InterruptedException {
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>(); // packets, then END or an error
    StreamObserver<BotPacket> out = stub.connect(new StreamObserver<RefereePacket>() {
      @Override public void onNext(RefereePacket packet) { inbox.add(packet); }
      @Override public void onError(Throwable error) { inbox.add(error); }
      @Override public void onCompleted() { inbox.add(END); }
    });
    Hello hello = Hello.newBuilder().setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
        .setToken(token).setClient("craits-java-bot").build();
    out.onNext(BotPacket.newBuilder().addMessages(BotMessage.newBuilder().setHello(hello))
        .build());
    Map<String, DecisionRequest> open = new HashMap<>(); // each game's decision still open
    while (true) {
      Object next = inbox.take();
      if (next == END) {
        out.onCompleted();
        return EXIT_OK;
      }
      if (next instanceof Throwable error) {
        Status status = Status.fromThrowable(error);
        Throwable cause = status.getCause();
        say("the stream to the referee broke: " + status.getCode() + ": "
            + status.getDescription() + (cause == null ? "" : " (" + cause.getMessage() + ")"));
        return EXIT_UNREACHABLE;
      }
      BotPacket.Builder replies = BotPacket.newBuilder();
      for (RefereeMessage message : ((RefereePacket) next).getMessagesList()) {
        switch (message.getPayloadCase()) {
          case ERROR -> {
            if (message.getError().getCode() == ErrorCode.ERROR_CODE_SHUTDOWN) {
              out.onCompleted();
              return EXIT_OK; // the referee's normal end
            }
            say(message.getError().getCode() + ": " + message.getError().getMessage());
            out.onCompleted();
            return EXIT_REFUSED;
          }
          case DECISION -> {
            DecisionRequest request = message.getDecision();
            open.put(request.getGameId(), request);
            reply(replies, request, choose(request));
          }
          case REJECTED -> {
            MoveRejected rejected = message.getRejected();
            say("move rejected: " + rejected.getReason());
            DecisionRequest request = open.get(rejected.getGameId());
            if (request == null) {
              continue;
            }
            if (rejected.getDecisionId() == request.getDecisionId()
                && rejected.getRetriesLeft() == 0) {
              open.remove(request.getGameId()); // closed: the referee moved for us
            } else {
              reply(replies, request, 0); // still open: index 0 is always legal
            }
          }
          case GAME_END -> open.remove(message.getGameEnd().getGameId());
          default -> { } // welcome, game start, updates: nothing to answer
        }
      }
      if (replies.getMessagesCount() > 0) {
        out.onNext(replies.build());
      }
    }
  }

  private static void reply(BotPacket.Builder packet, DecisionRequest request, int index) {
    packet.addMessages(BotMessage.newBuilder().setMove(MoveReply.newBuilder()
        .setGameId(request.getGameId()).setDecisionId(request.getDecisionId())
        .setLegalIndex(index)));
  }

  private static void say(String line) {
    System.err.println("craits-java-bot: " + line);
  }
}
