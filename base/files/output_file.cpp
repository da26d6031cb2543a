// Checked file writing; see output_file.h.
#include "base/files/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace warmsched::base {

write_error::write_error(const std::string& path, int err) : std::runtime_error(path + ": " + std::strerror(err)) {}

bool output_file::fd_buf::write_all(const char* p, std::size_t n) {
    while (n > 0 && first_error == 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            first_error = errno;
        } else if (w == 0) {
            first_error = EIO;
        } else {
            p += w;
            n -= static_cast<std::size_t>(w);
        }
    }
    return first_error == 0;
}

bool output_file::fd_buf::drain() {
    const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    setp(buf_, buf_ + sizeof buf_);
    return n == 0 || write_all(buf_, n);
}

output_file::fd_buf::int_type output_file::fd_buf::overflow(int_type c) {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
}

int output_file::fd_buf::sync() {
    return drain() ? 0 : -1;
}

std::streamsize output_file::fd_buf::xsputn(const char* s, std::streamsize n) {
    const std::size_t room = static_cast<std::size_t>(epptr() - pptr());
    const std::size_t len = static_cast<std::size_t>(n);
    if (len <= room) {
        std::memcpy(pptr(), s, len);
        pbump(static_cast<int>(len));
        return n;
    }
    if (!drain() || !write_all(s, len)) return 0; // large pieces go straight to the file
    return n;
}

output_file::output_file(std::string path) : std::ostream(nullptr), path_(std::move(path)) {
    buf_.fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (buf_.fd < 0) throw write_error(path_, errno);
    buf_.setp(buf_.buf_, buf_.buf_ + sizeof buf_.buf_);
    rdbuf(&buf_);
}

output_file::output_file(int fd, std::string name) : std::ostream(nullptr), path_(std::move(name)), owns_fd_(false) {
    buf_.fd = fd;
    buf_.setp(buf_.buf_, buf_.buf_ + sizeof buf_.buf_);
    rdbuf(&buf_);
}

output_file::~output_file() {
    if (buf_.fd >= 0 && owns_fd_) ::close(buf_.fd);
}

void output_file::close() {
    if (buf_.fd < 0) return;
    const bool drained = buf_.drain();
    const int fd = buf_.fd;
    buf_.fd = -1;
    const int closed = owns_fd_ ? ::close(fd) : 0;
    const int close_errno = errno;
    if (!drained || buf_.first_error) throw write_error(path_, buf_.first_error ? buf_.first_error : EIO);
    if (closed != 0) throw write_error(path_, close_errno);
    if (fail()) throw write_error(path_, "the data could not be formatted"); // a writer's own stream error
}

void write_file(const std::string& path, std::string_view text) {
    output_file f(path);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.close();
}

void make_directories(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) throw write_error(path, ec.value());
}

} // namespace warmsched::base
