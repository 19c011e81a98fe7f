// The words of every message, in each language. The Arabic is Modern Standard Arabic written for the
// Gulf, as the site's is (apps/web/app/i18n/ar.ts), with the brand as نماء and Western digits
// (the site's convention: figures are written with 0-9 in both editions).
import type { MailLocale } from './locale.ts';

/** Every message the service can send. `email_change` goes to the new address, `email_change_current` to the old one. */
export type MailKind =
  | 'confirmation'
  | 'recovery'
  | 'email_change'
  | 'email_change_current'
  | 'reauthentication'
  | 'magic_link'
  | 'invite'
  // Security notices: they tell the owner something happened, with no link or code in them.
  | 'mfa_verification_failures'
  | 'mfa_recovery_code_used'
  | 'account_deleted';

export const MAIL_KINDS: readonly MailKind[] = [
  'confirmation',
  'recovery',
  'email_change',
  'email_change_current',
  'reauthentication',
  'magic_link',
  'invite',
  'mfa_verification_failures',
  'mfa_recovery_code_used',
  'account_deleted',
];

/** A piece of a sentence: words, or a GoTrue template variable shown left to right (an address). */
export type Inline = string | { variable: 'Email' | 'NewEmail' | 'Failures' };

export type KindCopy = {
  subject: string;
  heading: string;
  intro: Inline[];
  /** The button's label; absent for a code-only message (reauthentication). */
  action?: string;
  /** Whether the message carries the 6-digit code. */
  code: boolean;
  /** Further paragraphs after the intro. */
  details?: Inline[][];
  /** A security notice: nothing expires and nothing is to be ignored, so those lines are left out. */
  notice?: true;
};

export type LocaleCopy = {
  brand: string;
  tagline: string;
  linkFallback: string;
  codeAfterLink: string;
  codeOnly: string;
  expiry(minutes: number, parts: { link: boolean; code: boolean }): string;
  ignore: string;
  kinds: Record<MailKind, KindCopy>;
};

/** Arabic counts: 1 دقيقة واحدة, 2 دقيقتان, 3–10 دقائق, 11 and up دقيقة (Intl's plural categories). */
function arabicMinutes(n: number): string {
  switch (new Intl.PluralRules('ar').select(n)) {
    case 'one':
      return 'دقيقة واحدة';
    case 'two':
      return 'دقيقتين';
    case 'few':
      return `${n} دقائق`;
    default:
      return `${n} دقيقة`;
  }
}

export const mailCopy: Record<MailLocale, LocaleCopy> = {
  en: {
    brand: 'Namaa',
    tagline: 'AI-powered social media growth, from Riyadh.',
    linkFallback: 'If the button does not work, copy this link into your browser:',
    codeAfterLink: 'Or enter this code:',
    codeOnly: 'Enter this code:',
    expiry: (minutes, p) => {
      const span = `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
      if (p.link && p.code) return `The link and the code expire in ${span} and work once.`;
      return p.link
        ? `The link expires in ${span} and works once.`
        : `The code expires in ${span} and works once.`;
    },
    ignore: 'If you did not ask for this, you can ignore this email.',
    kinds: {
      confirmation: {
        subject: 'Confirm your Namaa account',
        heading: 'Confirm your email',
        intro: ['Thanks for signing up. Confirm your email address to finish creating your Namaa account.'],
        action: 'Confirm my email',
        code: true,
      },
      recovery: {
        subject: 'Reset your Namaa password',
        heading: 'Reset your password',
        intro: ['Someone (hopefully you) asked to reset the password of your Namaa account.'],
        action: 'Reset my password',
        code: true,
      },
      email_change: {
        subject: 'Confirm your new email address',
        heading: 'Confirm your new email',
        intro: ['Confirm this address to make it the new email of your Namaa account.'],
        action: 'Confirm my new email',
        code: true,
      },
      // Secure email change: the current address must agree too, and learns of the request either way.
      email_change_current: {
        subject: 'Confirm the change of your Namaa email address',
        heading: 'Confirm your email change',
        intro: [
          'Someone (hopefully you) asked to change the email address of your Namaa account to ',
          { variable: 'NewEmail' },
          '. The change happens only after this address and the new one both confirm.',
        ],
        action: 'Confirm the change',
        code: true,
      },
      reauthentication: {
        subject: 'Your Namaa confirmation code',
        heading: 'Confirm it is you',
        intro: [
          'Someone (hopefully you) is changing the password of your Namaa account, or deleting it, and must confirm it is you.',
        ],
        code: true,
      },
      magic_link: {
        subject: 'Your Namaa sign-in link',
        heading: 'Sign in to Namaa',
        intro: ['Use this link to sign in to your Namaa account.'],
        action: 'Sign in',
        code: true,
      },
      invite: {
        subject: 'You have been invited to Namaa',
        heading: 'You are invited',
        intro: ['You have been invited to create a Namaa account. Accept the invitation to set it up.'],
        action: 'Accept the invitation',
        code: false,
      },
      mfa_verification_failures: {
        subject: 'Failed sign-in attempts on your Namaa account',
        heading: 'Wrong two-factor codes were entered',
        intro: [
          'Someone entered a wrong two-factor code for your Namaa account ',
          { variable: 'Failures' },
          ' times in a row.',
        ],
        details: [
          ['Your second factor stopped them, and further attempts are now slowed down.'],
          [
            'A two-factor code is asked for only after the right password: if this was not you, change your password now.',
          ],
        ],
        code: false,
        notice: true,
      },
      mfa_recovery_code_used: {
        subject: 'A recovery code was used on your Namaa account',
        heading: 'A recovery code was used to sign in',
        intro: [
          'A recovery code was just used instead of your second factor to sign in to the Namaa account of ',
          { variable: 'Email' },
          '.',
        ],
        details: [
          [
            'That code cannot be used again. Your account page shows how many codes are left and can make a new set.',
          ],
          [
            'If this was not you, someone has your password and one of your codes: change your password and make a new set of recovery codes now.',
          ],
        ],
        code: false,
        notice: true,
      },
      account_deleted: {
        subject: 'Your Namaa account was deleted',
        heading: 'Your account is deleted',
        intro: [
          'The Namaa account of ',
          { variable: 'Email' },
          " was deleted at its owner's request, from its account page.",
        ],
        details: [
          [
            'Your profile, sign-in methods, two-step verification and sessions are gone, and every device was signed out. The record of what happened to the account is kept without your address or network addresses.',
          ],
          ['You can sign up again with this address at any time.'],
        ],
        code: false,
        notice: true,
      },
    },
  },
  ar: {
    brand: 'نماء',
    tagline: 'نموّ حسابات التواصل الاجتماعي بالذكاء الاصطناعي، من الرياض.',
    linkFallback: 'إذا لم يعمل الزر، فانسخ هذا الرابط والصقه في متصفحك:',
    codeAfterLink: 'أو أدخل هذا الرمز:',
    codeOnly: 'أدخل هذا الرمز:',
    expiry: (minutes, p) => {
      const span = arabicMinutes(minutes);
      if (p.link && p.code) return `تنتهي صلاحية الرابط والرمز خلال ${span}، ولا يعملان إلا مرة واحدة.`;
      return p.link
        ? `تنتهي صلاحية الرابط خلال ${span}، ولا يعمل إلا مرة واحدة.`
        : `تنتهي صلاحية الرمز خلال ${span}، ولا يعمل إلا مرة واحدة.`;
    },
    ignore: 'إذا لم تطلب ذلك، فيمكنك تجاهل هذه الرسالة.',
    kinds: {
      confirmation: {
        subject: 'أكّد حسابك في نماء',
        heading: 'أكّد بريدك الإلكتروني',
        intro: ['شكرًا لتسجيلك. أكّد عنوان بريدك الإلكتروني لإكمال إنشاء حسابك في نماء.'],
        action: 'تأكيد بريدي الإلكتروني',
        code: true,
      },
      recovery: {
        subject: 'إعادة تعيين كلمة المرور لحسابك في نماء',
        heading: 'أعِد تعيين كلمة المرور',
        intro: ['طلب أحدهم (ونأمل أن تكون أنت) إعادة تعيين كلمة المرور لحسابك في نماء.'],
        action: 'إعادة تعيين كلمة المرور',
        code: true,
      },
      email_change: {
        subject: 'أكّد عنوان بريدك الإلكتروني الجديد',
        heading: 'أكّد بريدك الإلكتروني الجديد',
        intro: ['أكّد هذا العنوان ليصبح البريد الإلكتروني الجديد لحسابك في نماء.'],
        action: 'تأكيد بريدي الجديد',
        code: true,
      },
      email_change_current: {
        subject: 'أكّد تغيير بريدك الإلكتروني في نماء',
        heading: 'أكّد تغيير بريدك الإلكتروني',
        intro: [
          'طلب أحدهم (ونأمل أن تكون أنت) تغيير البريد الإلكتروني لحسابك في نماء إلى ',
          { variable: 'NewEmail' },
          '. لن يتم التغيير إلا بعد تأكيده من هذا العنوان ومن العنوان الجديد كليهما.',
        ],
        action: 'تأكيد التغيير',
        code: true,
      },
      reauthentication: {
        subject: 'رمز التأكيد لحسابك في نماء',
        heading: 'أكّد أنك صاحب الحساب',
        intro: [
          'يغيّر أحدهم (ونأمل أن تكون أنت) كلمة المرور لحسابك في نماء أو يحذف الحساب، ويلزم التأكد من أنك صاحب الحساب.',
        ],
        code: true,
      },
      magic_link: {
        subject: 'رابط تسجيل الدخول إلى نماء',
        heading: 'سجّل الدخول إلى نماء',
        intro: ['استخدم هذا الرابط لتسجيل الدخول إلى حسابك في نماء.'],
        action: 'تسجيل الدخول',
        code: true,
      },
      invite: {
        subject: 'دعوة للانضمام إلى نماء',
        heading: 'تلقّيت دعوة',
        intro: ['تلقّيت دعوة لإنشاء حساب في نماء. اقبل الدعوة لإعداده.'],
        action: 'قبول الدعوة',
        code: false,
      },
      mfa_verification_failures: {
        subject: 'محاولات دخول فاشلة إلى حسابك في نماء',
        heading: 'أُدخلت رموز تحقق ثنائي خاطئة',
        // Worded around the count, so it reads right for any number (Arabic plurals change with it).
        intro: [
          'أدخل أحدهم رموز تحقق ثنائي خاطئة لحسابك في نماء. عدد المحاولات المتتالية: ',
          { variable: 'Failures' },
          '.',
        ],
        details: [
          ['أوقفه العامل الثاني، وأصبحت المحاولات التالية أبطأ.'],
          [
            'لا يُطلب رمز التحقق الثنائي إلا بعد إدخال كلمة المرور الصحيحة: إن لم تكن أنت، فغيّر كلمة المرور الآن.',
          ],
        ],
        code: false,
        notice: true,
      },
      mfa_recovery_code_used: {
        subject: 'استُخدم رمز استرداد في حسابك في نماء',
        heading: 'استُخدم رمز استرداد لتسجيل الدخول',
        intro: [
          'استُخدم للتو رمز استرداد بدلًا من العامل الثاني لتسجيل الدخول إلى حساب نماء المرتبط بالعنوان ',
          { variable: 'Email' },
          '.',
        ],
        details: [
          [
            'لا يمكن استخدام هذا الرمز مرة أخرى. تعرض صفحة حسابك عدد الرموز المتبقية، ويمكنك منها إنشاء مجموعة جديدة.',
          ],
          [
            'إن لم تكن أنت، فلدى أحدهم كلمة مرورك وأحد رموزك: غيّر كلمة المرور وأنشئ مجموعة جديدة من رموز الاسترداد الآن.',
          ],
        ],
        code: false,
        notice: true,
      },
      account_deleted: {
        subject: 'حُذف حسابك في نماء',
        heading: 'حُذف حسابك',
        intro: ['حُذف حساب نماء المرتبط بالعنوان ', { variable: 'Email' }, ' بطلب من صاحبه، من صفحة الحساب.'],
        details: [
          [
            'حُذفت بياناتك وطرق تسجيل الدخول والتحقق بخطوتين والجلسات، وسُجّل خروج جميع الأجهزة. ويُحتفظ بسجل ما جرى للحساب دون عنوان بريدك أو عناوين الشبكة.',
          ],
          ['يمكنك إنشاء حساب جديد بهذا العنوان في أي وقت.'],
        ],
        code: false,
        notice: true,
      },
    },
  },
};
