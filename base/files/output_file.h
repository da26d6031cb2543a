// Writing a file whose every byte counts: a results file, a platform written by `import -o`, a plot's data.
// A plain ofstream drops write errors: on a full disk it leaves a truncated file and reports nothing, and a
// program that trusts it renames a cut directory into place as complete. output_file is an ostream over
// the file descriptor that keeps the first error of write(2), and close() -- which every writer calls --
// throws write_error naming the file and that error (ENOSPC, EDQUOT, EIO, ...), as does the constructor
// when the file cannot be created (ENOSPC for inodes, EACCES, EROFS). make_directories() is the checked
// mkdir -p of the same kind. sim/main.cpp puts std::cout on one too, so that a write error on standard
// output (`> /dev/full`, a full disk) is reported with its errno instead of ignored.
// Left out: fsync (a power cut is not a full disk); an output_file destroyed without close() (an
// exception is already on its way) closes the descriptor and reports nothing.
#pragma once

#include <cstddef>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>

namespace warmsched::base {

// A file could not be written: the message is "PATH: strerror" (one line). Not the user's input error:
// the program exits 1 (sim/main.cpp).
class write_error : public std::runtime_error {
public:
    write_error(const std::string& path, int err);
    write_error(const std::string& path, const std::string& what) : std::runtime_error(path + ": " + what) {}
};

class output_file : public std::ostream {
public:
    // Creates or truncates `path`. Throws write_error.
    explicit output_file(std::string path);
    // Writes to a descriptor that stays open (standard output), named `name` in errors; close() flushes.
    output_file(int fd, std::string name);
    ~output_file() override;
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    // Flushes and closes; throws write_error if any write, the flush or close(2) failed. Once only.
    void close();
    const std::string& path() const { return path_; }

private:
    class fd_buf : public std::streambuf {
    public:
        int fd = -1;
        int first_error = 0; // errno of the first failed write(2)
        bool drain();        // writes the buffer out; false after an error
    protected:
        int_type overflow(int_type c) override;
        int sync() override;
        std::streamsize xsputn(const char* s, std::streamsize n) override;
    private:
        bool write_all(const char* p, std::size_t n);
        char buf_[1 << 16];
        friend class output_file;
    };
    std::string path_;
    fd_buf buf_;
    bool owns_fd_ = true;
};

// Writes `text` as the whole of `path` (create or truncate, checked, closed). Throws write_error.
void write_file(const std::string& path, std::string_view text);

// mkdir -p that throws write_error naming the directory it could not make.
void make_directories(const std::string& path);

} // namespace warmsched::base
