// A Craits bot in C++ that speaks the referee's gRPC protocol directly, with code generated from
// proto/craits/v1/referee.proto (see Makefile). It plays the first legal move that gets rid of
// a card, else the first legal move, and follows docs/protocol.md's minimal bot: it answers every
// decision it holds open, resends after a rejection while the decision is open, and exits 0 when
// the referee says it is done (2 on any other Error, 1 when it cannot connect).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <grpcpp/grpcpp.h>

#include "craits/v1/referee.grpc.pb.h"

namespace v1 = craits::v1;

namespace {

// The index of the move to play: the first play (it sheds a card), else 0 (always legal).
uint32_t Choose(const v1::DecisionRequest& request) {
  for (int i = 0; i < request.legal_moves_size(); ++i) {
    if (request.legal_moves(i).kind() == v1::MOVE_KIND_PLAY) return static_cast<uint32_t>(i);
  }
  return 0;
}

void Reply(v1::BotPacket* packet, const v1::DecisionRequest& request, uint32_t index) {
  v1::MoveReply* reply = packet->add_messages()->mutable_move();
  reply->set_game_id(request.game_id());
  reply->set_decision_id(request.decision_id());
  reply->set_legal_index(index);
}

// The game's open decision, if any (nullptr otherwise).
const v1::DecisionRequest* OpenIn(const std::map<std::string, v1::DecisionRequest>& open,
                                  const std::string& game_id) {
  auto it = open.find(game_id);
  return it == open.end() ? nullptr : &it->second;
}

// Play until the stream ends; returns the process's exit status.
int Play(v1::Referee::Stub& stub, const std::string& token) {
  grpc::ClientContext context;
  auto stream = stub.Connect(&context);
  v1::BotPacket hello;
  v1::Hello* h = hello.add_messages()->mutable_hello();
  h->set_protocol_version(v1::PROTOCOL_VERSION_1);
  h->set_token(token);
  h->set_client("craits-cpp-bot");
  if (!stream->Write(hello)) {
    std::cerr << "craits-cpp-bot: cannot reach the referee\n";
    return 1;
  }
  std::map<std::string, v1::DecisionRequest> open;
  v1::RefereePacket packet;
  while (stream->Read(&packet)) {
    v1::BotPacket replies;
    for (const v1::RefereeMessage& msg : packet.messages()) {
      if (msg.has_error()) {
        bool done = msg.error().code() == v1::ERROR_CODE_SHUTDOWN;
        if (!done) {
          std::cerr << "craits-cpp-bot: " << v1::ErrorCode_Name(msg.error().code()) << ": "
                    << msg.error().message() << "\n";
        }
        stream->WritesDone();
        return done ? 0 : 2;
      }
      if (msg.has_decision()) {
        const v1::DecisionRequest& request = msg.decision();
        open[request.game_id()] = request;
        Reply(&replies, request, Choose(request));
      } else if (msg.has_rejected()) {
        const v1::MoveRejected& rejected = msg.rejected();
        const v1::DecisionRequest* request = OpenIn(open, rejected.game_id());
        if (request == nullptr) continue;
        if (rejected.decision_id() == request->decision_id() && rejected.retries_left() == 0) {
          open.erase(rejected.game_id());  // closed: the referee moved for us
        } else {
          Reply(&replies, *request, 0);  // still open, even if the rejection named another
        }
      } else if (msg.has_game_end()) {
        open.erase(msg.game_end().game_id());
      }
    }
    if (replies.messages_size() > 0 && !stream->Write(replies)) break;
  }
  grpc::Status status = stream->Finish();
  if (!status.ok()) {
    std::cerr << "craits-cpp-bot: the stream ended: " << status.error_message() << "\n";
    return 1;
  }
  return 0;
}

// The bytes of an IPv4 or IPv6 address, and their length (0 for any other family).
const void* Bytes(const sockaddr* address, size_t* size) {
  if (address->sa_family == AF_INET) {
    *size = sizeof(in_addr);
    return &reinterpret_cast<const sockaddr_in*>(address)->sin_addr;
  }
  *size = address->sa_family == AF_INET6 ? sizeof(in6_addr) : 0;
  return &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
}

// Whether every address host:port names is this machine's (loopback, the unspecified address,
// or one of its interfaces'), so that a plain-text dial keeps the token on it.
bool ThisMachine(const std::string& address) {
  size_t colon = address.rfind(':');
  std::string host = address.substr(0, colon == std::string::npos ? 0 : colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo* found = nullptr;
  if (host.empty() || getaddrinfo(host.c_str(), nullptr, nullptr, &found) != 0) return false;
  ifaddrs* own = nullptr;
  if (getifaddrs(&own) != 0) own = nullptr;
  bool all = true;
  for (addrinfo* a = found; a != nullptr && all; a = a->ai_next) {
    size_t size = 0;
    const void* bytes = Bytes(a->ai_addr, &size);
    bool mine = false;
    if (a->ai_family == AF_INET) {
      uint32_t ip = ntohl(static_cast<const in_addr*>(bytes)->s_addr);
      mine = (ip >> 24) == 127 || ip == INADDR_ANY;
    } else if (a->ai_family == AF_INET6) {
      const in6_addr* ip = static_cast<const in6_addr*>(bytes);
      mine = IN6_IS_ADDR_LOOPBACK(ip) || IN6_IS_ADDR_UNSPECIFIED(ip);
    }
    for (ifaddrs* i = own; i != nullptr && !mine; i = i->ifa_next) {
      size_t own_size = 0;
      if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != a->ai_family) continue;
      const void* own_bytes = Bytes(i->ifa_addr, &own_size);
      mine = own_size == size && size > 0 && std::memcmp(own_bytes, bytes, size) == 0;
    }
    all = mine;
  }
  if (own != nullptr) freeifaddrs(own);
  freeaddrinfo(found);
  return all;
}

// A channel to CRAITS_SERVER as docs/protocol.md says: TLS for tls:// or https://, or when
// CRAITS_TLS_CA names a CA file (PEM; else the system's CAs); unix: stays plain (it never
// leaves the machine); a plain dial beyond this machine is refused unless
// CRAITS_ALLOW_PLAINTEXT=1 (the token would travel readable). Null, having said why, when the
// dial is refused or the CA file cannot be read.
std::shared_ptr<grpc::Channel> Dial(std::string server) {
  bool tls = false;
  for (const std::string scheme : {"tls://", "https://"}) {
    if (server.rfind(scheme, 0) == 0) {
      server = server.substr(scheme.size());
      tls = true;
    }
  }
  const char* ca = std::getenv("CRAITS_TLS_CA");
  bool has_ca = ca != nullptr && *ca != '\0';
  if (server.rfind("unix:", 0) == 0) {
    return grpc::CreateChannel(server, grpc::InsecureChannelCredentials());
  }
  if (!tls && !has_ca) {
    const char* allow = std::getenv("CRAITS_ALLOW_PLAINTEXT");
    if ((allow == nullptr || std::string(allow) != "1") && !ThisMachine(server)) {
      std::cerr << "craits-cpp-bot: CRAITS_SERVER " << server << " is beyond this machine and "
                << "the dial is plain text, where anyone on the path can read the token: dial "
                << "tls://" << server << " (with CRAITS_TLS_CA naming the organiser's CA), or "
                << "on a network you trust set CRAITS_ALLOW_PLAINTEXT=1\n";
      return nullptr;
    }
    return grpc::CreateChannel(server, grpc::InsecureChannelCredentials());
  }
  grpc::SslCredentialsOptions options;
  if (has_ca) {
    std::ifstream file(ca);
    std::stringstream pem;
    pem << file.rdbuf();
    if (!file || pem.str().empty()) {
      std::cerr << "craits-cpp-bot: cannot read CRAITS_TLS_CA " << ca << "\n";
      return nullptr;
    }
    options.pem_root_certs = pem.str();
  }
  return grpc::CreateChannel(server, grpc::SslCredentials(options));
}

}  // namespace

int main() {
  const char* server = std::getenv("CRAITS_SERVER");
  const char* token = std::getenv("CRAITS_TOKEN");
  if (server == nullptr || *server == '\0' || token == nullptr || *token == '\0') {
    std::cerr << "craits-cpp-bot: set CRAITS_SERVER (host:port) and CRAITS_TOKEN\n";
    return 2;
  }
  auto channel = Dial(server);
  if (channel == nullptr) return 2;
  auto stub = v1::Referee::NewStub(channel);
  return Play(*stub, token);
}
