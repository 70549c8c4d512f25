import type { NotificationConfig } from './notification-config';
import { fileEmailTransport, fileSmsTransport } from './file-transport';
import { smsHttpTransport } from './sms-http-transport';
import { smtpTransport } from './smtp-transport';
import type { NotificationTransports } from './transport';

/** The worker's transports, from its settings: SMTP or files for email, the HTTP provider or files for SMS. */
export function notificationTransports(config: NotificationConfig): NotificationTransports {
  const email = config.smtpUrl ? smtpTransport(config.smtpUrl) : fileEmailTransport(config.outboxDir);
  const sms = config.sms ? smsHttpTransport(config.sms.url, config.sms.token) : fileSmsTransport(config.outboxDir);
  return {
    email,
    sms,
    close() {
      email.close();
      sms.close();
    },
  };
}
