/**
 * ETags as sealkit compares and sends them: without the surrounding quotes.
 * Ceph RGW 16 matches `If-Match` against the bare value only (the quoted form
 * always fails with 412); AWS S3 accepts the bare value as well.
 */
export function bareEtag(etag: string | undefined): string | undefined {
  if (etag === undefined) return undefined;
  const trimmed = etag.startsWith('W/') ? etag.slice(2) : etag;
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
    ? trimmed.slice(1, -1)
    : trimmed;
}

const MD5_HEX = /^[0-9a-f]{32}$/;

/**
 * True when an ETag is the MD5 of the object's bytes: a single-part upload
 * without KMS encryption, which is what both AWS S3 and Ceph RGW return for a
 * plain PUT. Multipart (`…-N`) and encrypted ETags are opaque.
 */
export function isMd5Etag(etag: string): boolean {
  return MD5_HEX.test(etag);
}
