// The encoding checks and names the client relies on.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // the codec the stream uses
	"google.golang.org/protobuf/proto"
)

// CheckZeroIndexIsSent guards the pitfall every non-Python bot must avoid:
// Action.choice_index is proto3 `optional`, so "index 0" and "no index" differ on the
// wire. An encoder or a helper that leaves zero-valued fields out sends an Action with
// neither index nor choice for option 0, which the arena records as MALFORMED_ACTION and
// forfeits the game. protoc-gen-go makes the field a *uint32 and writes a set 0; this
// check proves it at start-up, through the codec gRPC itself uses on the stream, so a
// change of library or of the generated code fails here instead of in a match.
func CheckZeroIndexIsSent() (err error) {
	defer func() {
		// github.com/golang/protobuf 1.3 under grpc-go's codec panics on these messages
		if failure := recover(); failure != nil {
			err = fmt.Errorf("gRPC's proto codec cannot encode an Action (%v): github.com/golang/protobuf must be 1.4 or newer (Debian: golang-github-golang-protobuf-1-5-dev)", failure)
		}
	}()
	without, err := EncodeBotMessage(actionMessage(nil))
	if err != nil {
		return err
	}
	withZero, err := EncodeBotMessage(actionMessage(proto.Uint32(0)))
	if err != nil {
		return err
	}
	// field 3, varint (tag 0x18), value 0: two more bytes inside the action
	if len(withZero) != len(without)+2 || !bytes.HasSuffix(withZero, []byte{0x18, 0x00}) {
		return errors.New("this protobuf setup drops choice_index 0; every answer naming option 0 would forfeit the game")
	}
	return nil
}

// EncodeBotMessage serializes a BotMessage exactly as the stream will.
func EncodeBotMessage(message *BotMessage) ([]byte, error) {
	return encoding.GetCodec("proto").Marshal(message)
}

func actionMessage(index *uint32) *BotMessage {
	return &BotMessage{Kind: &BotMessage_Action{Action: &Action{MatchId: "m", Seq: 1, ChoiceIndex: index}}}
}

// codeNames spell gRPC status codes as the protocol's documentation does.
var codeNames = map[codes.Code]string{
	codes.OK:                 "OK",
	codes.Canceled:           "CANCELLED",
	codes.Unknown:            "UNKNOWN",
	codes.InvalidArgument:    "INVALID_ARGUMENT",
	codes.DeadlineExceeded:   "DEADLINE_EXCEEDED",
	codes.NotFound:           "NOT_FOUND",
	codes.AlreadyExists:      "ALREADY_EXISTS",
	codes.PermissionDenied:   "PERMISSION_DENIED",
	codes.ResourceExhausted:  "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION",
	codes.Aborted:            "ABORTED",
	codes.OutOfRange:         "OUT_OF_RANGE",
	codes.Unimplemented:      "UNIMPLEMENTED",
	codes.Internal:           "INTERNAL",
	codes.Unavailable:        "UNAVAILABLE",
	codes.DataLoss:           "DATA_LOSS",
	codes.Unauthenticated:    "UNAUTHENTICATED",
}

// CodeName is a status code as in docs/protocol.md: "UNAUTHENTICATED".
func CodeName(code codes.Code) string {
	if name, ok := codeNames[code]; ok {
		return name
	}
	return fmt.Sprintf("CODE_%d", uint32(code))
}

var logMu sync.Mutex

// Logf writes one line to standard output, after the time in UTC.
func Logf(line string) {
	logMu.Lock()
	defer logMu.Unlock()
	stamp := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	fmt.Fprintf(os.Stdout, "%s %s\n", stamp, strings.TrimRight(line, "\n"))
}
