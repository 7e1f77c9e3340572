/** Why a socket could not be bound or listen, in an operator's words (EADDRINUSE, EADDRNOTAVAIL, EACCES). */
export function describeSocketError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'EADDRINUSE':
      return 'address already in use (another agent running? pick another port)';
    case 'EADDRNOTAVAIL':
      return 'address not available on this machine';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
    default:
      return (error as Error).message;
  }
}
