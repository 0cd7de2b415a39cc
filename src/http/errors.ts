/** An error a client caused or may see: it becomes the envelope's message, code and errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string> = {},
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, errors: Record<string, string> = {}) => new ApiError(400, message, errors);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string, errors: Record<string, string> = {}) => new ApiError(409, message, errors);
export const blockedByRule = (message: string) => new ApiError(405, message);
export const preconditionFailed = (message: string) => new ApiError(412, message);
