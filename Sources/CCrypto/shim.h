// SHA-256 for manifests and downloads, from OpenSSL's libcrypto (libssl-dev).
#include <openssl/evp.h>
#include <openssl/crypto.h>
