// Command craits-go-bot is a Craits bot in Go: it speaks the referee's gRPC protocol
// (docs/protocol.md) with code generated from proto/craits/v1/referee.proto, and plays by the
// one function a contestant rewrites, choose.
//
// The referee starts it with CRAITS_SERVER and CRAITS_TOKEN set. It opens one Referee.Connect
// stream, says Hello, and answers every decision of a packet in one packet. Exit status: 0 when
// the referee ends the stream or shuts down, 2 when it refuses the bot (or the environment is
// incomplete), 3 when the referee cannot be reached or the stream breaks.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"

	pb "craits/v1"
)

// choose is the strategy: the index, in request.LegalMoves, of the move to play. The request
// holds everything the seat may know (request.Observation: the hand, the top card, the count,
// every seat's hand size, the history). This one gets rid of a card when it can (the first
// play), else takes the first legal move: index 0 is always legal.
func choose(request *pb.DecisionRequest) uint32 {
	for i, move := range request.GetLegalMoves() {
		if move.GetKind() == pb.MoveKind_MOVE_KIND_PLAY {
			return uint32(i)
		}
	}
	return 0
}

const (
	exitOK          = 0
	exitRefused     = 2
	exitUnreachable = 3
)

func main() {
	os.Exit(run())
}

func run() int {
	server, token := os.Getenv("CRAITS_SERVER"), os.Getenv("CRAITS_TOKEN")
	if server == "" || token == "" {
		say("set CRAITS_SERVER (host:port, tls://host:port or unix:/path) and CRAITS_TOKEN")
		return exitRefused
	}
	conn, err := dial(server, os.Getenv("CRAITS_TLS_CA"))
	if err != nil {
		say(err.Error())
		return exitRefused
	}
	defer conn.Close()
	stream, err := pb.NewRefereeClient(conn).Connect(context.Background())
	if err != nil {
		say("cannot reach the referee at " + server + ": " + err.Error())
		return exitUnreachable
	}
	return play(stream, token)
}

// dial opens a channel to CRAITS_SERVER as docs/protocol.md says: TLS for tls:// or https://,
// or for host:port when CRAITS_TLS_CA names a CA (PEM; else the system's CAs are trusted); a
// unix: socket stays plain whatever CRAITS_TLS_CA says (it never leaves the machine). A plain
// dial beyond this machine is refused unless CRAITS_ALLOW_PLAINTEXT=1: the token would travel
// readable to whoever answers.
func dial(server, caFile string) (*grpc.ClientConn, error) {
	address, wantTLS := server, caFile != ""
	for _, scheme := range []string{"tls://", "https://"} {
		if strings.HasPrefix(server, scheme) {
			address, wantTLS = strings.TrimSuffix(strings.TrimPrefix(server, scheme), "/"), true
		}
	}
	if strings.HasPrefix(address, "unix:") {
		return grpc.Dial(address, grpc.WithInsecure())
	}
	if !wantTLS {
		if os.Getenv("CRAITS_ALLOW_PLAINTEXT") != "1" && !thisMachine(address) {
			return nil, fmt.Errorf("CRAITS_SERVER %s is beyond this machine and the dial is "+
				"plain text, where anyone on the path can read the token: dial tls://%s "+
				"(with CRAITS_TLS_CA naming the organiser's CA), or on a network you trust set "+
				"CRAITS_ALLOW_PLAINTEXT=1", address, address)
		}
		return grpc.Dial(address, grpc.WithInsecure())
	}
	config := &tls.Config{}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("CRAITS_TLS_CA: %w", err)
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CRAITS_TLS_CA %s holds no PEM certificate", caFile)
		}
	}
	return grpc.Dial(address, grpc.WithTransportCredentials(credentials.NewTLS(config)))
}

// thisMachine says whether every address host:port names is this machine's (loopback, the
// unspecified address, or one of its interfaces'), so that a plain-text dial keeps the token
// on the machine.
func thisMachine(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	own, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		mine := ip.IsLoopback() || ip.IsUnspecified()
		for _, a := range own {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				mine = true
			}
		}
		if !mine {
			return false
		}
	}
	return true
}

// play says Hello, then answers the referee until the stream ends; it returns the exit status.
func play(stream pb.Referee_ConnectClient, token string) int {
	hello := &pb.Hello{ProtocolVersion: pb.ProtocolVersion_PROTOCOL_VERSION_1, Token: token,
		Client: "craits-go-bot"}
	err := stream.Send(&pb.BotPacket{Messages: []*pb.BotMessage{
		{Payload: &pb.BotMessage_Hello{Hello: hello}}}})
	open := map[string]*pb.DecisionRequest{} // each game's decision still open
	for err == nil {
		var packet *pb.RefereePacket
		if packet, err = stream.Recv(); err != nil {
			break
		}
		replies := &pb.BotPacket{}
		for _, message := range packet.GetMessages() {
			switch m := message.GetPayload().(type) {
			case *pb.RefereeMessage_Error:
				if m.Error.GetCode() == pb.ErrorCode_ERROR_CODE_SHUTDOWN {
					return exitOK // the referee's normal end
				}
				say(m.Error.GetCode().String() + ": " + m.Error.GetMessage())
				return exitRefused
			case *pb.RefereeMessage_Decision:
				open[m.Decision.GetGameId()] = m.Decision
				reply(replies, m.Decision, choose(m.Decision))
			case *pb.RefereeMessage_Rejected:
				say("move rejected: " + m.Rejected.GetReason())
				request := open[m.Rejected.GetGameId()]
				if request == nil {
					continue
				}
				if m.Rejected.GetDecisionId() == request.GetDecisionId() &&
					m.Rejected.GetRetriesLeft() == 0 {
					delete(open, request.GetGameId()) // closed: the referee moved for us
				} else {
					reply(replies, request, 0) // still open: index 0 is always legal
				}
			case *pb.RefereeMessage_GameEnd:
				delete(open, m.GameEnd.GetGameId())
			}
		}
		if len(replies.Messages) > 0 {
			err = stream.Send(replies)
		}
	}
	if errors.Is(err, io.EOF) {
		return exitOK
	}
	say("the stream to the referee broke: " + err.Error())
	return exitUnreachable
}

func reply(packet *pb.BotPacket, request *pb.DecisionRequest, index uint32) {
	move := &pb.MoveReply{GameId: request.GetGameId(), DecisionId: request.GetDecisionId(),
		Choice: &pb.MoveReply_LegalIndex{LegalIndex: index}}
	packet.Messages = append(packet.Messages, &pb.BotMessage{
		Payload: &pb.BotMessage_Move{Move: move}})
}

func say(line string) {
	fmt.Fprintln(os.Stderr, "craits-go-bot: "+line)
}

// protoCodec (un)marshals messages with google.golang.org/protobuf, the library the generated
// code is built on. Debian 12's grpc-go (1.33) marshals through an older protobuf library,
// which panics with a nil pointer on the first send of these messages; registered under the
// name "proto", this codec takes its place.
type protoCodec struct{}

func (protoCodec) Marshal(v interface{}) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }

func (protoCodec) Unmarshal(data []byte, v interface{}) error {
	return proto.Unmarshal(data, v.(proto.Message))
}

func (protoCodec) Name() string { return "proto" }

func init() {
	encoding.RegisterCodec(protoCodec{})
}
