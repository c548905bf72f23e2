// A load driver in C++ for bench/burst.ts: HTTP/1.1 over keep-alive loopback connections,
// prebuilt requests, answers read for their status, Retry-After and length, on one epoll loop.
// It costs a few microseconds of CPU per request where a Node driver costs hundreds, so the
// 2 cores the bench shares with the service under test and its node go to them.
//
//   native-driver <host> <port> open <rate/s> <seconds> <requests file>
//   native-driver <host> <port> closed <concurrency> <seconds> <requests file>
//
// open: request i is sent at start + i / rate (the schedule is caught up at least every
// millisecond), on an idle connection or a new one (no limit); closed: <concurrency> clients,
// each sending its next request when its answer arrived. The requests file holds the requests
// to send in turn, each as a 4-byte little-endian length and its bytes. Prints one line per
// answer, "<status> <microseconds> <has Retry-After 0/1> <body bytes> <on a new connection 0/1>
// <the request's index in the file>" (status 0: the connection failed or closed first), then
// "# connections <n> cpu_us <user+system> elapsed_us <from the first request to the last answer>".
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  bool busy = false;
  /** Whether the request in flight opened this connection (its set-up is in its time). */
  bool fresh = false;
  /** The request in flight: its index in the requests file. */
  size_t request = 0;
  Clock::time_point started;
  std::string in;
  /** The request's bytes not written yet (a connection still connecting, a full buffer). */
  const std::string* out = nullptr;
  size_t out_off = 0;
  /** Whether epoll is asked for EPOLLOUT (only while something is left to write). */
  bool armed = false;
};

std::vector<std::string> requests;
size_t next_request = 0;
std::vector<Conn*> idle;
int ep = -1;
sockaddr_in target{};
long opened = 0;
long in_flight = 0;

struct Answer {
  int status;
  long us;
  int retry_after;
  long bytes;
  int fresh;
  size_t request;
};
std::vector<Answer> answers;

long micros(Clock::time_point from) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - from).count();
}

void finish(Conn* c, int status, int retry_after, long bytes) {
  answers.push_back({status, micros(c->started), retry_after, bytes, c->fresh ? 1 : 0, c->request});
  c->busy = false;
  c->in.clear();
  in_flight--;
}

void drop(Conn* c) {
  if (c->busy) finish(c, 0, 0, 0);
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, nullptr);
  close(c->fd);
  for (size_t i = 0; i < idle.size(); i++)
    if (idle[i] == c) {
      idle.erase(idle.begin() + static_cast<long>(i));
      break;
    }
  delete c;
}

void watch(Conn* c, int op, bool out) {
  epoll_event ev{};
  ev.events = static_cast<uint32_t>(EPOLLIN | EPOLLRDHUP) | (out ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.ptr = c;
  epoll_ctl(ep, op, c->fd, &ev);
  c->armed = out;
}

// A new connection, connecting without blocking (a full accept queue must not stop the
// schedule): its request is written once it is writable.
Conn* open_conn() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return nullptr;
  if (connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0 &&
      errno != EINPROGRESS) {
    close(fd);
    return nullptr;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  auto* c = new Conn();
  c->fd = fd;
  opened++;
  return c;
}

// Writes what is left of the request; false: the connection failed (and is dropped).
bool flush(Conn* c) {
  while (c->out && c->out_off < c->out->size()) {
    ssize_t n = write(c->fd, c->out->data() + c->out_off, c->out->size() - c->out_off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN)) return true;
    if (n <= 0) {
      drop(c);
      return false;
    }
    c->out_off += static_cast<size_t>(n);
  }
  c->out = nullptr;
  if (c->armed) watch(c, EPOLL_CTL_MOD, false);
  return true;
}

// Sends the next request on `c` (an idle connection, or a new one when null). Its time runs
// from here: a connection's set-up is in it.
void send_on(Conn* c) {
  const size_t index = next_request++ % requests.size();
  const std::string& r = requests[index];
  const auto started = Clock::now();
  const bool fresh = c == nullptr;
  if (fresh) c = open_conn();
  if (c == nullptr) {
    answers.push_back({0, 0, 0, 0, 1, index});
    return;
  }
  in_flight++;
  c->busy = true;
  c->fresh = fresh;
  c->request = index;
  c->started = started;
  c->out = &r;
  c->out_off = 0;
  if (fresh) {
    watch(c, EPOLL_CTL_ADD, true);  // written when the connection is writable
    return;
  }
  if (flush(c) && c->out) watch(c, EPOLL_CTL_MOD, true);
}

int lower_eq(const char* a, const char* b, size_t n) { return strncasecmp(a, b, n) == 0; }

// An answer complete in c->in: its status, Retry-After, length; false while incomplete.
bool parse(Conn* c, int* status, int* retry_after, long* bytes, bool* keep) {
  size_t end = c->in.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const char* s = c->in.data();
  *status = atoi(s + 9);  // "HTTP/1.1 503 ..."
  long length = -1;
  bool chunked = false;
  *retry_after = 0;
  *keep = true;
  size_t line = c->in.find("\r\n") + 2;
  while (line < end) {
    size_t eol = c->in.find("\r\n", line);
    const char* h = s + line;
    size_t len = eol - line;
    if (len > 15 && lower_eq(h, "content-length:", 15)) length = atol(h + 15);
    else if (len > 12 && lower_eq(h, "retry-after:", 12)) *retry_after = 1;
    else if (len > 18 && lower_eq(h, "transfer-encoding:", 18)) chunked = true;
    else if (len > 11 && lower_eq(h, "connection:", 11))
      *keep = c->in.find("close", line) >= eol;
    line = eol + 2;
  }
  size_t body = end + 4;
  if (chunked) {
    if (c->in.find("0\r\n\r\n", body) == std::string::npos) return false;
    *bytes = static_cast<long>(c->in.size() - body);
    return true;
  }
  if (length < 0 || c->in.size() - body < static_cast<size_t>(length)) return false;
  *bytes = length;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: native-driver host port open|closed rate|concurrency seconds file\n");
    return 2;
  }
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<uint16_t>(atoi(argv[2])));
  if (inet_pton(AF_INET, argv[1], &target.sin_addr) != 1) {
    fprintf(stderr, "native-driver: host must be an IPv4 address\n");
    return 2;
  }
  const bool open_loop = strcmp(argv[3], "open") == 0;
  const double param = atof(argv[4]);
  const double seconds = atof(argv[5]);
  std::ifstream file(argv[6], std::ios::binary);
  uint32_t n = 0;
  while (file.read(reinterpret_cast<char*>(&n), 4)) {
    std::string r(n, '\0');
    file.read(r.data(), n);
    requests.push_back(std::move(r));
  }
  if (requests.empty() || param <= 0 || seconds <= 0) {
    fprintf(stderr, "native-driver: no requests, or a rate/concurrency/seconds not above 0\n");
    return 2;
  }
  ep = epoll_create1(0);
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::microseconds(static_cast<long>(seconds * 1e6));
  const auto give_up = end + std::chrono::seconds(60);
  long sent = 0;
  if (!open_loop)
    for (int i = 0; i < static_cast<int>(param); i++) send_on(nullptr);
  epoll_event events[256];
  char buf[65536];
  for (;;) {
    const auto now = Clock::now();
    const bool sending = now < end;
    if (open_loop && sending) {
      const long due = static_cast<long>(
          std::chrono::duration<double>(now - t0).count() * param);
      for (; sent < due; sent++) {
        Conn* c = nullptr;
        if (!idle.empty()) {
          c = idle.back();
          idle.pop_back();
        }
        send_on(c);
      }
    }
    if (!sending && in_flight == 0) break;
    if (now > give_up) break;
    const int ready = epoll_wait(ep, events, 256, 1);
    for (int i = 0; i < ready; i++) {
      auto* c = static_cast<Conn*>(events[i].data.ptr);
      if ((events[i].events & EPOLLOUT) && c->out) {
        int error = 0;
        socklen_t size = sizeof error;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &size);
        if (error != 0) {
          const bool was_busy = c->busy;
          drop(c);
          if (was_busy && !open_loop && Clock::now() < end) send_on(nullptr);
          continue;
        }
        if (!flush(c)) continue;
      }
      bool gone = false;
      for (;;) {
        ssize_t got = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (got > 0) {
          c->in.append(buf, static_cast<size_t>(got));
          if (got < static_cast<ssize_t>(sizeof buf)) break;
          continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (got < 0 && errno == EINTR) continue;
        gone = true;
        break;
      }
      int status = 0, retry_after = 0;
      long bytes = 0;
      bool keep = true;
      if (c->busy && parse(c, &status, &retry_after, &bytes, &keep)) {
        finish(c, status, retry_after, bytes);
        if (!keep || gone) {
          drop(c);
          if (!open_loop && Clock::now() < end) send_on(nullptr);
          continue;
        }
        if (!open_loop && Clock::now() < end) send_on(c);
        else idle.push_back(c);
        continue;
      }
      if (gone || (events[i].events & (EPOLLERR | EPOLLHUP))) {
        const bool was_busy = c->busy;
        drop(c);
        if (was_busy && !open_loop && Clock::now() < end) send_on(nullptr);
      }
    }
  }
  const long elapsed_us = micros(t0);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const long cpu_us = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec +
                      ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
  std::string out;
  out.reserve(answers.size() * 24);
  char line[64];
  for (const Answer& a : answers) {
    snprintf(line, sizeof line, "%d %ld %d %ld %d %zu\n", a.status, a.us, a.retry_after, a.bytes,
             a.fresh, a.request);
    out += line;
  }
  fwrite(out.data(), 1, out.size(), stdout);
  printf("# connections %ld cpu_us %ld elapsed_us %ld\n", opened, cpu_us, elapsed_us);
  return 0;
}
