"""Generated protobuf and gRPC code for the craits.v1 protocol (see proto/generate.sh)."""
