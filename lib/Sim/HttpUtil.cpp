//===- HttpUtil.cpp - Small evhttp helpers shared by the sim's servers ----===//
#include "HttpUtil.h"
#include "SimLog.h"
#include "arecipe/Support/AtomicFile.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

namespace arecipe::sim {

void sendReply(evhttp_request *Req, evbuffer *Scratch, int Code,
               std::string_view Body, const char *ContentType) {
  evkeyvalq *Headers = evhttp_request_get_output_headers(Req);
  evhttp_add_header(Headers, "Content-Type", ContentType);
  evbuffer_add(Scratch, Body.data(), Body.size());
  const char *Reason = Code == 200   ? "OK"
                       : Code == 400 ? "Bad Request"
                       : Code == 404 ? "Not Found"
                       : Code == 503 ? "Service Unavailable"
                                     : "Error";
  evhttp_send_reply(Req, Code, Reason, Scratch);
}

std::string requestHeader(evhttp_request *Req, const char *Name) {
  const char *V =
      evhttp_find_header(evhttp_request_get_input_headers(Req), Name);
  return V ? V : "";
}

std::string_view requestBody(evhttp_request *Req) {
  evbuffer *In = evhttp_request_get_input_buffer(Req);
  size_t Len = evbuffer_get_length(In);
  const char *Data = reinterpret_cast<const char *>(
      evbuffer_pullup(In, static_cast<ssize_t>(Len)));
  return std::string_view(Data ? Data : "", Data ? Len : 0);
}

std::string_view requestPath(evhttp_request *Req) {
  const char *Path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(Req));
  return Path ? Path : "/";
}

bool isPost(evhttp_request *Req) {
  return evhttp_request_get_command(Req) == EVHTTP_REQ_POST;
}

bool writePortFile(const std::string &Path, int Port, SimLog &Log) {
  std::string Err;
  if (Path.empty() || support::writeFileAtomically(Path, std::to_string(Port) + "\n", Err))
    return true;
  Log.error(Err);
  return false;
}

} // namespace arecipe::sim
