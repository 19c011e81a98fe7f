import type { Locale } from '~/config/locales.ts';

/**
 * Texts for the auth service's own error messages, by GoTrue `error_code`, for locales whose visitors
 * must not see the service's English. English has no entry: spec §8 shows the service's own message.
 * `unknown` replaces a message whose code is not listed (the service only speaks English).
 */
export type ServiceErrorMessages = { byCode: Readonly<Record<string, string>>; unknown: string };

const arUnavailable = 'الخدمة غير متاحة مؤقتًا. يرجى المحاولة بعد قليل.';

export const serviceErrorCatalogs: Partial<Record<Locale, ServiceErrorMessages>> = {
  ar: {
    byCode: {
      email_not_confirmed: 'لم يُؤكَّد بريدك الإلكتروني بعد. يرجى فتح رابط التأكيد المرسل إليك.',
      email_exists: 'هذا البريد الإلكتروني مسجّل بالفعل. يرجى تسجيل الدخول بدلًا من ذلك.',
      email_address_invalid: 'عنوان البريد الإلكتروني غير صالح',
      weak_password: 'كلمة المرور ضعيفة أو شائعة جدًا. يرجى اختيار كلمة مرور أقوى.',
      signup_disabled: 'إنشاء الحسابات الجديدة غير متاح حاليًا.',
      user_banned: 'هذا الحساب موقوف. يرجى التواصل معنا.',
      validation_failed: 'تعذّر قبول البيانات المدخلة. يرجى مراجعتها والمحاولة مرة أخرى.',
      over_request_rate_limit: 'محاولات كثيرة خلال وقت قصير. يرجى الانتظار قليلًا ثم المحاولة مرة أخرى.',
      over_email_send_rate_limit: 'أُرسل عدد كبير من الرسائل إلى هذا البريد. يرجى المحاولة لاحقًا.',
      over_sms_send_rate_limit:
        'أُرسلت رسالة نصية إلى هذا الرقم قبل قليل. يرجى الانتظار ثم المحاولة مرة أخرى.',
      sms_send_failed: 'تعذّر إرسال الرسالة النصية. يرجى المحاولة لاحقًا.',
      service_unavailable: arUnavailable,
      unexpected_failure: arUnavailable,
    },
    unknown: 'حدث خطأ. يرجى المحاولة مرة أخرى.',
  },
};
