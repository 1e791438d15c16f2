internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// libcurl's callbacks: plain C functions that find their context through the user-data pointer.

// The header, write and prerequest callbacks get the easy handle (see `EasyHandle.transfer`);
// libcurl calls them only for a handle in the multi handle, which has a transfer.

let headerCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.with(EasyHandle.transfer(behind: userData!)!) {
        $0.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }
}

let writeCallback: curl_write_callback = { pointer, size, count, userData in
    TransferContext.with(EasyHandle.transfer(behind: userData!)!) {
        $0.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }
}

// The read and seek callbacks stay installed on a pooled handle; libcurl calls them only for
// requests that send a body, which set their user data to the context (a handle's is nil in
// between).

let readCallback: curl_read_callback = { pointer, size, count, userData in
    guard let userData else { return Int(SLUICE_READFUNC_ABORT) }
    return TransferContext.with(userData) {
        $0.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
    }
}

let prerequestCallback: curl_prereq_callback = { userData, _, _, _, _ in
    guard let userData, let transfer = EasyHandle.transfer(behind: userData) else { return SLUICE_PREREQFUNC_OK }
    return TransferContext.with(transfer) { $0.beginAttempt() }
}

let seekCallback: curl_seek_callback = { userData, offset, origin in
    guard let userData, origin == SEEK_SET else { return SLUICE_SEEKFUNC_CANTSEEK }
    return TransferContext.with(userData) { $0.rewindBody(to: Int64(offset)) }
}
