export interface Application {
  id: string;
  name: string;
  userReportsLimit: number;
  useOrganizationUserDatabase: boolean;
  organizationId: string | null;
  userPool: string;
  jwtSecret: string;
  webhookSecret: string;
  added: Date;
}
